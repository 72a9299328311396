/* AutoSync's stand-in for a helper_math.h-style header (written for AutoSync, used only
   when the kernel's folder and the -I folders have no helper_math.h of their own).

   What such a header provides, and how AutoSync models it:
   - the float2/float3/float4 (and int/uint) operators + - * / and their compound forms:
     modelled natively, elementwise, by the front end's vector arithmetic (kpl.ctypes:
     float4 * float is float4), so they need no declaration here;
   - make_float3(float s), make_float3(float4 v), ...: modelled natively as vector
     constructors (kpl.fe.calls, make_*);
   - the helpers below, overloaded in C++ on float2/3/4: C has no overloading, so each is
     declared once, old-style (any arguments).  Each takes its operands BY VALUE and reads
     no memory of its own: a call's only memory effects are the reads in its arguments,
     which the front end models.  Their results are values the verifier does not know. */
#ifndef KPL_STUB_HELPER_MATH_H
#define KPL_STUB_HELPER_MATH_H
float dot();
float length();
float lerp();
float smoothstep();
float clamp();
float3 cross();
float3 normalize();
float3 reflect();
float3 fracf();
#endif
