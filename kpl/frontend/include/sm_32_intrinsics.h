/* AutoSync: sm_32_intrinsics.h is declared by the prelude (__autosync_cuda.h). */
#pragma once
