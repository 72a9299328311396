/* AutoSync: device_functions.h is declared by the prelude (__autosync_cuda.h). */
#pragma once
