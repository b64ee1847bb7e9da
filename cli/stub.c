#include <stdio.h>
#include "cli.h"
int lfa_cli_dump(int argc, char **argv) { (void)argc; (void)argv; fputs("not yet\n", stderr); return 2; }
int lfa_cli_sample(int argc, char **argv) { (void)argc; (void)argv; fputs("not yet\n", stderr); return 2; }
