/* AutoSync: sm_20_atomic_functions.h is declared by the prelude (__autosync_cuda.h). */
#pragma once
