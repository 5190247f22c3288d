/* The library's version string, exported so `strings`/dlsym can tell which popmeter is loaded. */
#include "config.h"
__attribute__((visibility("default"))) const char popmeter_version[] = PACKAGE_VERSION;
