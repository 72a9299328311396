/* AutoSync: printf is declared by the prelude (__autosync_cuda.h). */
#pragma once
