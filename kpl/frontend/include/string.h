/* AutoSync: memcpy and memset are declared by the prelude (__autosync_cuda.h). */
#pragma once
