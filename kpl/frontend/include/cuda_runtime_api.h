/* AutoSync: cuda_runtime_api.h is declared by the prelude (__autosync_cuda.h). */
#pragma once
