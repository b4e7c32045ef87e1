/* tuning.h - evtc's mapping of its tuning environment variables onto evt_tuning. */
#ifndef EVT_TOOLS_TUNING_H
#define EVT_TOOLS_TUNING_H

#include <evt/evt.h>

/* Sets ctx's tuning from EVT_CONFIG, EVT_SPLITK and EVT_ROW_GROUP; 0 (with
 * the reason on stderr) when one is malformed or names no configuration. */
int evtc_tuning_from_env(evt_ctx *ctx);

#endif
