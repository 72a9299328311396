/* AutoSync's <stdlib.h> (written for AutoSync): malloc/free and abs are the prelude's. */
#pragma once
#define EXIT_SUCCESS 0
#define EXIT_FAILURE 1
