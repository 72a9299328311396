/* AutoSync's <stdint.h> (written for AutoSync): the fixed-width types are typedefs of the
   prelude (__autosync_cuda.h); their limits are literals here. */
#pragma once
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
#define INTPTR_MAX INT64_MAX
#define UINTPTR_MAX UINT64_MAX
