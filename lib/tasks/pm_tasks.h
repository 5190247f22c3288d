/* The task-runtime model as a module (pm_module.h): at finalize it adds the task part of the
 * process profile (pm_profile_build_tasks.c). Its parts: pm_taskgraph.h (the DAG and its critical
 * path), pm_task_stats.h (per-codelet statistics), pm_task_comm.h (data movement). */
#ifndef PM_TASKS_H
#define PM_TASKS_H
#include "pm_module.h"
PM_HIDDEN extern const pm_module pm_tasks_module;
#endif
