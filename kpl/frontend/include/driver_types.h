/* AutoSync: driver_types.h is declared by the prelude (__autosync_cuda.h). */
#pragma once
