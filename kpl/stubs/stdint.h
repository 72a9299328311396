/* AutoSync's stand-in for <stdint.h>/<cstdint> (written for AutoSync): the fixed-width
   types are typedefs of the prelude kpl/stubs/cuda.h; their limits are literals here. */
#ifndef KPL_STUB_STDINT_H
#define KPL_STUB_STDINT_H
#define INT8_MIN (-128)
#define INT8_MAX 127
#define UINT8_MAX 255
#define INT16_MIN (-32768)
#define INT16_MAX 32767
#define UINT16_MAX 65535
#define INT32_MIN (-2147483647 - 1)
#define INT32_MAX 2147483647
#define UINT32_MAX 4294967295u
#define INT64_MIN (-9223372036854775807ll - 1)
#define INT64_MAX 9223372036854775807ll
#define UINT64_MAX 18446744073709551615ull
#define SIZE_MAX 18446744073709551615ull
#endif
