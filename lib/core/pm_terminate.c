/* A process of a parallel run that its launcher terminates (SIGTERM: another rank died and mpirun
 * aborts the job) reports what it measured before it dies, instead of losing it.
 *
 * Reporting is not async-signal-safe, so the handler only posts a semaphore (which is); a thread
 * started when the process learns it is part of a parallel run waits on it, reports this process
 * alone (as when MPI_Finalize is never called) and then ends the process by SIGTERM, so the exit
 * status the launcher sees is unchanged. Armed only when the application left SIGTERM at its default
 * action; an application that installs its own handler later simply replaces this one. A forked
 * child gets the default action back (no thread waits in it). */
#define _GNU_SOURCE
#include "pm_lifecycle.h"
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <unistd.h>

static sem_t term_sem;
static int armed;

static void on_term(int sig) {
  (void)sig;
  int e = errno;
  sem_post(&term_sem);
  errno = e;
}

static void *report_and_die(void *arg) {
  (void)arg;
  pm_set_in_tool(1); /* nothing this thread does is the application's */
  while (sem_wait(&term_sem) != 0 && errno == EINTR) {}
  signal(SIGTERM, SIG_IGN); /* while reporting; the launcher's SIGKILL still ends a report that hangs */
  pm_core_finalize(&pm_ipc_serial, "terminated by SIGTERM (the launcher aborted the run): this report covers "
                                   "this process only");
  signal(SIGTERM, SIG_DFL);
  kill(getpid(), SIGTERM);
  return NULL;
}

void pm_terminate_arm(void) {
  struct sigaction old;
  if (armed || sigaction(SIGTERM, NULL, &old) != 0 || old.sa_handler != SIG_DFL || (old.sa_flags & SA_SIGINFO)) return;
  if (sem_init(&term_sem, 0, 0) != 0) return;
  sigset_t all, prev;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &prev); /* the thread inherits a mask that blocks every signal */
  pthread_t t;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  int rc = pthread_create(&t, &attr, report_and_die, NULL);
  pthread_attr_destroy(&attr);
  pthread_sigmask(SIG_SETMASK, &prev, NULL);
  if (rc != 0) return;
  struct sigaction sa = {0};
  sa.sa_handler = on_term;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  if (sigaction(SIGTERM, &sa, NULL) == 0) armed = 1;
}

void pm_terminate_after_fork_child(void) {
  if (!armed) return;
  armed = 0;
  signal(SIGTERM, SIG_DFL);
}
