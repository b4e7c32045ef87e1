/* names.h - the spelling of every enum: element types, shapes, mainloops,
 * layouts, reductions, SM targets and statuses.
 *
 * The public spellings (evt_elem_name, evt_shape_name, evt_mainloop_name,
 * evt_target_name, evt_target_parse, evt_status_string, evt_version) are
 * declared in evt.h and defined in names.c, so that every stage can print
 * them without calling up into api/.  The ones evt.h does not offer are below. */
#ifndef EVT_SUPPORT_NAMES_H
#define EVT_SUPPORT_NAMES_H

#include <evt/evt.h>

/* "row", "col", or "" for EVT_LAYOUT_NONE; a static string. */
const char *names_layout(evt_layout layout);
/* Parses "row" or "col"; 0 if name is neither. */
int names_layout_parse(const char *name, evt_layout *out);
/* "reduce_sum", "reduce_max", "reduce_min", or "" for EVT_REDUCE_NONE. */
const char *names_reduce(evt_reduce reduce);
/* The target as entry-point names end: "sm80", "sm86", "sm89", "sm90a". */
const char *names_target_suffix(evt_target target);

#endif
