/* AutoSync's <assert.h> (written for AutoSync).  assert(e) is a call of a function without a
   body: a pure function of its argument, so the condition IS evaluated (its reads are
   accesses, as the old front end had them) and the assertion itself has no other effect.
   NDEBUG removes it, as in C. */
#undef assert
#ifdef NDEBUG
#define assert(e) ((void)0)
#else
extern "C" __device__ __host__ void __autosync_assert(bool condition);
#define assert(e) __autosync_assert(e)
#endif
