/* AutoSync: cooperative_groups::reduce and its operators are declared by cooperative_groups.h. */
#pragma once
#include <cooperative_groups.h>
