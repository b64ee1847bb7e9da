/* cli.h: subcommands of `lfa`; each takes its own argv (argv[0] is the
 * subcommand name) and returns the process exit status. */
#ifndef LFA_CLI_H
#define LFA_CLI_H

enum { LFA_EXIT_OK = 0, LFA_EXIT_FINDINGS = 1, LFA_EXIT_UNUSABLE = 2, LFA_EXIT_NOT_CHECKED = 3 };

int lfa_cli_dump(int argc, char **argv);
int lfa_cli_eval(int argc, char **argv);
int lfa_cli_explore(int argc, char **argv);
int lfa_cli_sample(int argc, char **argv);
int lfa_cli_verify(int argc, char **argv);
int lfa_cli_run(int argc, char **argv);
int lfa_cli_adapter(int argc, char **argv);
int lfa_cli_conformance(int argc, char **argv);
int lfa_cli_cleanup(int argc, char **argv);
int lfa_cli_track(int argc, char **argv);
int lfa_cli_invalidate(int argc, char **argv);
int lfa_cli_report(int argc, char **argv);

#endif
