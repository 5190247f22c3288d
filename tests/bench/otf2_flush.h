/* Flush callbacks for an OTF2 archive a test or benchmark writes in one go: every buffer is
 * flushed when full, and no timestamp is recorded for the flush. */
#ifndef OTF2_FLUSH_H
#define OTF2_FLUSH_H
#include <otf2/otf2.h>

static inline OTF2_FlushType otf2_flush_always(void *ud, OTF2_FileType ft, OTF2_LocationRef loc, void *cb, bool final) {
  (void)ud, (void)ft, (void)loc, (void)cb, (void) final;
  return OTF2_FLUSH;
}
static inline OTF2_TimeStamp otf2_flush_no_time(void *ud, OTF2_FileType ft, OTF2_LocationRef loc) {
  (void)ud, (void)ft, (void)loc;
  return 0;
}
static const OTF2_FlushCallbacks otf2_flush_callbacks = {otf2_flush_always, otf2_flush_no_time};
#endif
