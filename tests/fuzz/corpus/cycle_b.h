// Include cycle: cycle_b.h -> cycle_a.h (no guards).
#include "cycle_a.h"
#define CYCLE_B 2
