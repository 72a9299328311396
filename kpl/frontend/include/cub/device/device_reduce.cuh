/* AutoSync: declared by <cub/cub.cuh> (written for AutoSync). */
#pragma once
#include <cub/cub.cuh>
