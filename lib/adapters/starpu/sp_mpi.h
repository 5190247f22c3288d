/* StarPU adapter, StarPU-MPI part: the clock side channel used by sp_mpi.c (see sp_mpi_clock.c). */
#ifndef SP_MPI_H
#define SP_MPI_H
#include <mpi.h>
#include <starpu_mpi.h>
#include "sp_adapter.h"

#define SP_CLOCK_TAG 7351 /* MPI tag of clock messages on the channel's communicator (sp_mpi_clock.c) */

/* Any thread, no MPI call: whether transfers on comm carry clocks (ranks of comm are the world
 * ranks: MPI_COMM_WORLD, or a communicator found congruent to it on the progress thread). */
PM_HIDDEN int sp_clock_usable(MPI_Comm comm);
/* Progress thread: learns comm's congruence with MPI_COMM_WORLD (cached for sp_clock_usable). */
PM_HIDDEN void sp_clock_learn_comm(MPI_Comm comm);
/* Progress thread: posts the clock of a transfer of data_tag to peer (non-blocking). */
PM_HIDDEN void sp_clock_send(int peer, int64_t data_tag, const pm_tg_clk *c);
/* Progress thread: receives every clock message that arrived (kept until a receive asks). */
PM_HIDDEN void sp_clock_drain(void);
/* Any thread: the clock the sender attached to (peer, data_tag), in arrival order; waits a
 * bounded time for it (the sender posts it before the data, so it is normally there). 0: lost. */
PM_HIDDEN int sp_clock_receive(int peer, int64_t data_tag, pm_tg_clk *out);
#endif
