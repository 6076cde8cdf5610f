/* The DDS domain a bridge's participant lives in: Cyclone's configuration ($CYCLONEDDS_URI) with
 * the bridge's own default in front of it (docs/BRIDGE.md, "Under CPU load").
 *
 * A participant that hears nothing from a peer for the peer's lease (Cyclone's default: 10 s)
 * deletes it, its readers and writers with it. Cyclone announces a participant 2 s before its lease
 * ends (every 8 s with the default lease), so a bridge descheduled for 2 s on a loaded machine was
 * dropped by its peers while alive: their writers stopped sending to it (what they wrote meanwhile
 * reached it only as far as their catch-up history went), and it came back only with its next
 * announcement, tens of seconds later at load 45. Announcing every second leaves 9 s of the lease.
 *
 * The user's configuration comes after ours, so any SPDPInterval it sets wins. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define ZB_DDS_DEFAULTS                                                                           \
	"<CycloneDDS><Domain id=\"any\"><Discovery><SPDPInterval>1 s</SPDPInterval></Discovery>" \
	"</Domain></CycloneDDS>"

dds_entity_t zb_domain_create(uint32_t domain)
{
	const char *user = getenv("CYCLONEDDS_URI");
	size_t n = sizeof ZB_DDS_DEFAULTS + (user ? strlen(user) + 1 : 0);
	char *cfg = malloc(n);
	if (!cfg)
		return 0;
	snprintf(cfg, n, "%s%s%s", ZB_DDS_DEFAULTS, user && *user ? "," : "", user ? user : "");
	dds_entity_t d = dds_create_domain(domain, cfg);
	free(cfg);
	/* it exists already (another participant of this process made it, with its configuration):
	 * the bridge joins it as it is */
	return d > 0 ? d : 0;
}

void zb_domain_release(dds_entity_t d)
{
	/* another bridge of this process may still have its participant there */
	if (d > 0 && dds_get_children(d, NULL, 0) == 0)
		dds_delete(d);
}
