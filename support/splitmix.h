/* splitmix.h - SplitMix64 (Steele, Lea and Flood, 2014): the one
 * pseudo-random generator behind the check's row samples
 * (interp/check.c), evtc run's inputs, progen's programs and the GPU
 * tests' data, so that a seed means the same draws on every machine.
 * Adds the golden ratio to the state and mixes the sum: every seed, zero
 * included, starts a sequence of period 2^64.  The state is an unsigned
 * long long (64 bits on every target we build for) because most callers'
 * states, seeds from the command line and the API, are. */
#ifndef EVT_SUPPORT_SPLITMIX_H
#define EVT_SUPPORT_SPLITMIX_H

static inline unsigned long long evt_splitmix64(unsigned long long *state)
{
    unsigned long long z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

#endif /* EVT_SUPPORT_SPLITMIX_H */
