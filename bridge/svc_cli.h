/* The zcast-bridge program's lines about service routes (svc_cli.c). */
#ifndef ZB_SVC_CLI_H
#define ZB_SVC_CLI_H
#include "zcast_bridge.h"
/* --check: one line per service route. */
void zb_cli_services_check(const zcast_bridge_config *c);
/* Prints a line when a service route changes state or its count of remote DDS endpoints. 1 if
 * one failed. */
int zb_cli_services_poll(zcast_bridge *b, const zcast_bridge_config *c);
/* At exit: each service route's counters. */
void zb_cli_services_report(zcast_bridge *b, const zcast_bridge_config *c);
#endif
