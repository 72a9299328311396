// Include cycle: cycle_a.h -> cycle_b.h -> cycle_a.h (no guards).
#include "cycle_b.h"
#define CYCLE_A 1
