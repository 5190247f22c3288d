/* cubex_check: structural checker and value dumper for .cubex files (see cubex_read.h). */
#include "cubex_read.h"

int main(int argc, char **argv) { return cubex_cli(argc, argv, stdout, stderr); }
