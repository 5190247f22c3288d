#!/usr/bin/env python3
"""Generates popmeter's MPI wrappers from mpi_calls.def (format: see the head of that file).

Outputs (each selected by its option, so that make can build them with one rule per file):
  --header F   pm_mpi_calls.h: enum pm_mpi_call (one entry per table line), PM_MPI_NCALLS
  --c F        C wrappers MPI_X -> PMPI_X, the region table and pm_mpi_register_regions()
  --fortran F  Fortran wrappers mpi_x_ / mpi_x__ / mpi_x / MPI_X -> pmpi_x_ (mpif.h, 'use mpi')
               and mpi_x_f08_ -> pmpi_x_f08_ ('use mpi_f08')
  --list       one line per call: name, class, state, role, fortran, f08, actions (for tests)
Python 3 standard library only; deterministic output.
"""
import argparse
import os
import re
import sys

# class -> (state, default role, timestamped)
CLASSES = {
    'p2p_blocking': ('PM_STATE_MPI_P2P', 'PM_ROLE_POINT2POINT', True),
    'p2p_nonblocking': ('PM_STATE_MPI_P2P', 'PM_ROLE_POINT2POINT', True),
    'collective': ('PM_STATE_MPI_COLL', 'PM_ROLE_COLLECTIVE', True),
    'collective_nonblocking': ('PM_STATE_MPI_COLL', 'PM_ROLE_COLLECTIVE', True),
    'wait': ('PM_STATE_MPI_SYNC', 'PM_ROLE_FUNCTION', True),
    'poll': (None, 'PM_ROLE_FUNCTION', False),
    'file_io': ('PM_STATE_MPI_IO', 'PM_ROLE_FILE_IO', True),
    'rma': ('PM_STATE_MPI_P2P', 'PM_ROLE_POINT2POINT', True),
    'rma_sync': ('PM_STATE_MPI_SYNC', 'PM_ROLE_FUNCTION', True),
    'management': ('PM_STATE_MPI_MGMT', 'PM_ROLE_FUNCTION', True),
}
ROLES = {'function': 'PM_ROLE_FUNCTION', 'point2point': 'PM_ROLE_POINT2POINT',
         'collective': 'PM_ROLE_COLLECTIVE', 'barrier': 'PM_ROLE_BARRIER', 'file_io': 'PM_ROLE_FILE_IO'}

# actions with their own templates; every other action NAME is generic: pm_mpi_b_NAME after success
SPECIAL = {'cpcoll', 'cpbarrier', 'send', 'start', 'startall', 'mrecv', 'imrecv', 'request_free', 'wait', 'test', 'waitall',
           'testall', 'waitany', 'testany', 'waitsome', 'testsome'}
# actions that must run whenever the adapter is on, even on a thread without a location and with
# the critical path off: they keep the request table consistent
ALWAYS = {'request_free', 'wait', 'test', 'waitall', 'testall', 'waitany', 'testany', 'waitsome', 'testsome'}
ARITY = {'cpcoll': 1, 'cpbarrier': 1, 'send': 5, 'start': 1, 'startall': 2, 'mrecv': 2, 'imrecv': 2, 'request_free': 1, 'wait': 2,
         'test': 3, 'waitall': 3, 'testall': 4, 'waitany': 4, 'testany': 5, 'waitsome': 5, 'testsome': 5}

HANDLE_F2C = {'MPI_Datatype': 'PMPI_Type_f2c', 'MPI_Comm': 'PMPI_Comm_f2c', 'MPI_Request': 'PMPI_Request_f2c',
              'MPI_Message': 'PMPI_Message_f2c', 'MPI_File': 'PMPI_File_f2c', 'MPI_Win': 'PMPI_Win_f2c',
              'MPI_Group': 'PMPI_Group_f2c', 'MPI_Op': 'PMPI_Op_f2c', 'MPI_Info': 'PMPI_Info_f2c'}


class TableError(Exception):
    pass


class Param:
    def __init__(self, text):
        t = ' '.join(text.split())
        m = re.match(r'^(.*?)\b(\w+)\s*(\[\])?$', t)
        if not m or not m.group(1).strip():
            raise TableError('cannot parse parameter %r' % text)
        self.raw = t
        tp = m.group(1).strip()
        self.name = m.group(2)
        self.arr = bool(m.group(3))
        self.const = tp.startswith('const ')
        self.base = tp.replace('const ', '').replace('*', '').strip()
        self.ptr = tp.count('*') + (1 if self.arr else 0)

    def is_status(self):
        return self.base == 'MPI_Status'

    # declaration in a Fortran-binding prototype (everything by reference)
    def fdecl(self):
        if self.base == 'void':
            return 'void *' + self.name
        if self.base == 'char':
            return 'char *' + self.name
        if self.base in ('MPI_Aint', 'MPI_Offset', 'MPI_Count'):
            return '%s *%s' % (self.base, self.name)
        return 'MPI_Fint *' + self.name

    def is_char(self):
        return self.base == 'char'

    # value of the parameter as a C expression, for action arguments
    def cval(self):
        if self.is_status():
            return 'pm_st'
        if self.ptr == 1 and not self.arr and self.base in ('int', 'MPI_Request', 'MPI_Message', 'MPI_Comm',
                                                              'MPI_File', 'MPI_Win'):
            return '*' + self.name
        return self.name

    def fval(self):
        n, b = self.name, self.base
        if self.is_status():
            return 'pm_mpi_fst2c(pm_fst, &pm_cst)'
        if b == 'void':
            return 'pm_mpi_f_buf(%s)' % n
        if b == 'int':
            return '(const int *)%s' % n if self.arr else '(int)*%s' % n
        if b in ('MPI_Aint', 'MPI_Offset', 'MPI_Count'):
            return n if self.arr else '*' + n
        if b in HANDLE_F2C:
            return n if self.arr else '%s(*%s)' % (HANDLE_F2C[b], n)
        raise TableError('no Fortran conversion for parameter %r' % self.raw)


class Call:
    def __init__(self, lineno, fields):
        if len(fields) < 5 or len(fields) > 6:
            raise TableError('line %d: expected 5 or 6 fields, got %d' % (lineno, len(fields)))
        self.lineno = lineno
        self.name, self.ret, params, self.cls, actions = [f.strip() for f in fields[:5]]
        opts = fields[5].split() if len(fields) == 6 else []
        if not re.match(r'^MPI_[A-Z][a-z0-9_]*$', self.name):
            raise TableError('line %d: bad name %r' % (lineno, self.name))
        if self.cls not in CLASSES:
            raise TableError('line %d: unknown class %r' % (lineno, self.cls))
        self.params = [] if params.strip() in ('', 'void') else [Param(p) for p in split_top(params)]
        self.byname = {p.name: p for p in self.params}
        self.state, self.role, self.timed = CLASSES[self.cls]
        self.custom = False
        self.fortran = True
        self.f08 = True
        self.fsig = None
        for o in opts:
            if o == 'custom':
                self.custom = True
            elif o.startswith('role='):
                if o[5:] not in ROLES:
                    raise TableError('line %d: unknown role %r' % (lineno, o))
                self.role = ROLES[o[5:]]
            elif o == 'fortran=no':
                self.fortran = False
            elif o == 'f08=no':
                self.f08 = False
            elif o.startswith('fsig='):
                self.fsig = o[5:].replace('~', ' ')
            else:
                raise TableError('line %d: unknown option %r' % (lineno, o))
        self.actions = []
        a = actions.strip()
        if a and a != 'none':
            for item in a.split(';'):
                m = re.match(r'^\s*(\w+)\s*\(([^)]*)\)\s*$', item)
                if not m:
                    raise TableError('line %d: cannot parse action %r' % (lineno, item))
                args = [x.strip() for x in m.group(2).split(',') if x.strip()]
                for x in args:
                    if x not in self.byname:
                        raise TableError('line %d: action %s: %r is not a parameter of %s' %
                                         (lineno, m.group(1), x, self.name))
                if m.group(1) in ARITY and len(args) != ARITY[m.group(1)]:
                    raise TableError('line %d: action %s takes %d arguments' % (lineno, m.group(1),
                                                                                ARITY[m.group(1)]))
                self.actions.append((m.group(1), args))
        self.always = any(a in ALWAYS for a, _ in self.actions)
        self.enum = 'PM_MPI_' + self.name

    @property
    def lower(self):
        return self.name.lower()


def split_top(s):
    out, depth, cur = [], 0, ''
    for ch in s:
        if ch == ',' and depth == 0:
            out.append(cur)
            cur = ''
            continue
        depth += ch == '('
        depth -= ch == ')'
        cur += ch
    out.append(cur)
    return [x for x in (o.strip() for o in out) if x]


def read_table(path):
    calls, seen = [], set()
    with open(path, encoding='utf-8') as f:
        lines = f.read().split('\n')
    buf, start = '', 0
    for i, line in enumerate(lines, 1):
        line = line.split('#', 1)[0].rstrip()
        if not buf:
            start = i
        if line.endswith('\\'):
            buf += line[:-1] + ' '
            continue
        buf += line
        if buf.strip():
            c = Call(start, buf.split('|'))
            if c.name in seen:
                raise TableError('line %d: %s listed twice' % (start, c.name))
            seen.add(c.name)
            calls.append(c)
        buf = ''
    return calls


HEAD = '/* Generated by gen_wrappers.py from mpi_calls.def -- do not edit. */\n'


def gen_header(calls):
    o = [HEAD, '#ifndef PM_MPI_CALLS_H', '#define PM_MPI_CALLS_H', 'enum pm_mpi_call {']
    o += ['  %s,' % c.enum for c in calls]
    o += ['  PM_MPI_NCALLS', '};', '#endif', '']
    return '\n'.join(o)


# ------------------------------------------------------------------------------------------ bodies
class Frag:
    def __init__(self):
        self.decl, self.pre, self.early, self.ok, self.post, self.late, self.end = [], [], [], [], [], [], []
        self.subst = {}          # parameter -> expression passed to PMPI instead
        self.call = None         # an expression that makes the PMPI call (or does its work) instead


def build(call, fortran):
    """Code fragments of the actions of one call, for the C or the Fortran wrapper."""
    F = Frag()
    P = call.byname

    def v(name):
        return P[name].fval() if fortran else P[name].cval()

    status_params = set()
    for act, args in call.actions:
        if act in ('wait', 'test', 'waitall', 'testall', 'waitany', 'testany', 'waitsome', 'testsome'):
            continue
        status_params.update(a for a in args if P[a].is_status())
    for s in sorted(status_params):   # at most one per call in MPI
        if fortran:
            F.decl.append('MPI_Fint pm_fstl[PM_MPI_F_STATUS_SIZE];')
            F.decl.append('MPI_Fint *pm_fst = pm_mpi_f_status_ignored(%s) ? pm_fstl : %s;' % (s, s))
            F.decl.append('MPI_Status pm_cst;')
            F.subst[s] = 'pm_fst'
        else:
            F.decl.append('MPI_Status pm_stl;')
            F.decl.append('MPI_Status *pm_st = (%s == MPI_STATUS_IGNORE) ? &pm_stl : %s;' % (s, s))
            F.subst[s] = 'pm_st'

    for act, args in call.actions:
        A = args
        if act not in SPECIAL:
            fn = 'pm_mpi_b_' + act
            if fortran and any(P[a].base == 'MPI_Datatype' and P[a].arr for a in A):
                fn += '_f'
            F.ok.append('%s(&X%s);' % (fn, ''.join(', ' + v(a) for a in A)))
        elif act == 'send':
            count, typ, peer, tag, comm = A
            F.pre.append('pm_mpi_pre_send(&X, %s, %s, %s);' % (v(peer), v(tag), v(comm)))
            F.ok.append('pm_mpi_b_send(&X, %s, %s, %s);' % (v(count), v(typ), v(peer)))
            # trace (mpi_trace.c): the message, with its request for a non-blocking send
            req = v('request') if call.cls == 'p2p_nonblocking' and 'request' in P else 'MPI_REQUEST_NULL'
            F.ok.append('if (PM_UNLIKELY(pm_mpi_trace_on)) pm_mpi_t_send(&X, %s, %s, %s, %s, %s, %s);'
                        % (v(count), v(typ), v(peer), v(tag), v(comm), req))
        elif act in ('cpcoll', 'cpbarrier'):
            # the clock exchange is posted before the collective and completed after it, whatever
            # its result (the other ranks' part of it is under way)
            F.decl.append('pm_mpi_cpc pm_cc;')
            F.pre.append('pm_mpi_pre_cpcoll(&X, %s, &pm_cc, %s);' % (v(A[0]), call.enum))
            # on one node the other ranks' slots are requested as soon as the collective returns
            # and read only after the call's own exit, which hides the transfer between cores
            F.early.append('pm_mpi_cp_coll_early(&pm_cc);')
            F.post.append('pm_mpi_cp_coll_post(&X, &pm_cc, rc);')
            F.late.append('pm_mpi_cp_coll_late(&X, &pm_cc, rc);')
            if act == 'cpbarrier':
                # the exchange synchronises the ranks as the barrier does: it replaces the barrier
                # when there is one (the post step has nothing left to do then); Fortran's error
                # codes are C's
                F.call = ('*pm_ierr = (MPI_Fint)pm_mpi_cp_barrier(&X, &pm_cc, %s);' if fortran else
                          'pm_mpi_cp_barrier(&X, &pm_cc, %s);') % v(A[0])
        elif act == 'start':
            F.pre.append('pm_mpi_pre_start(&X, %s);' % v(A[0]))
            F.ok.append('pm_mpi_b_start(&X, %s);' % v(A[0]))
        elif act == 'startall':
            sfx = '_f' if fortran else ''
            F.pre.append('pm_mpi_pre_startall%s(&X, %s, %s);' % (sfx, v(A[0]), A[1]))
            F.ok.append('pm_mpi_b_startall%s(&X, %s, %s);' % (sfx, v(A[0]), A[1]))
        elif act in ('mrecv', 'imrecv'):
            F.pre.append('pm_mpi_shadow *pm_msh = pm_mpi_pre_mrecv(&X, %s);' % v(A[0]))
            if act == 'mrecv':
                F.post.append('pm_mpi_post_mrecv(&X, rc, pm_msh, %s);' % v(A[1]))
            else:
                F.post.append('pm_mpi_post_imrecv(&X, rc, pm_msh, rc == MPI_SUCCESS ? %s : MPI_REQUEST_NULL);'
                              % v(A[1]))
        elif act == 'request_free':
            F.pre.append('pm_mpi_pre_request_free(&X, %s);' % v(A[0]))
        elif act in ('wait', 'test'):
            req, st = A[0], A[-1]
            cond = 'rc == MPI_SUCCESS' + (' && *%s' % A[1] if act == 'test' else '')
            if fortran:
                F.decl.append('MPI_Fint pm_fstl[PM_MPI_F_STATUS_SIZE];')
                F.decl.append('MPI_Fint *pm_fst = pm_mpi_f_status_ignored(%s) ? pm_fstl : %s;' % (st, st))
                F.subst[st] = 'pm_fst'
                F.pre.append('MPI_Request pm_r0 = pm_mpi_reqtab_empty() ? MPI_REQUEST_NULL : PMPI_Request_f2c(*%s);'
                             % req)
                F.post.append('if (%s && pm_r0 != MPI_REQUEST_NULL) {' % cond)
                F.post.append('  MPI_Status pm_cst;')
                F.post.append('  pm_mpi_complete1(&X, pm_r0, PMPI_Request_f2c(*%s), pm_mpi_fst2c(pm_fst, &pm_cst));'
                              % req)
                F.post.append('}')
            else:
                F.decl.append('MPI_Status pm_stl;')
                F.decl.append('MPI_Status *pm_st = (%s == MPI_STATUS_IGNORE) ? &pm_stl : %s;' % (st, st))
                F.subst[st] = 'pm_st'
                F.pre.append('MPI_Request pm_r0 = *%s;' % req)
                F.post.append('if (%s) pm_mpi_complete1(&X, pm_r0, *%s, pm_st);' % (cond, req))
        else:   # waitall testall waitany testany waitsome testsome
            single = act in ('waitany', 'testany')
            count, reqs, st = A[0], A[1], A[-1]
            F.decl.append('pm_mpi_snap pm_S;')
            if fortran:
                F.pre.append('MPI_Fint *pm_sts = pm_mpi_fsnap_pre(&pm_S, (int)*%s, %s, %s, %d);'
                             % (count, reqs, st, single))
            else:
                F.pre.append('MPI_Status *pm_sts = pm_mpi_snap_pre(&pm_S, %s, %s, %s, %d);'
                             % (count, reqs, st, single))
            F.subst[st] = 'pm_sts'
            deref = (lambda x: '(int)*' + x) if fortran else (lambda x: '*' + x)
            if act == 'waitall':
                args = 'PM_MPI_DONE_ALL, 1, 0, 0, NULL'
            elif act == 'testall':
                args = 'PM_MPI_DONE_ALL, rc == MPI_SUCCESS && %s, 0, 0, NULL' % deref(A[2])
            elif act == 'waitany':
                args = 'PM_MPI_DONE_ONE, 1, rc == MPI_SUCCESS ? %s : MPI_UNDEFINED, 0, NULL' % deref(A[2])
            elif act == 'testany':
                args = ('PM_MPI_DONE_ONE, rc == MPI_SUCCESS && %s, rc == MPI_SUCCESS ? %s : MPI_UNDEFINED, 0, NULL'
                        % (deref(A[3]), deref(A[2])))
            else:
                args = 'PM_MPI_DONE_SOME, 1, 0, rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS ? %s : MPI_UNDEFINED, %s' \
                       % (deref(A[2]), A[3])
            fn = 'pm_mpi_fsnap_post' if fortran else 'pm_mpi_snap_post'
            F.post.append('%s(&X, &pm_S, rc, %s, %s);' % (fn, args, reqs))
            F.end.append('pm_mpi_snap_end(&pm_S);')
    if call.cls == 'collective' and 'comm' in P and call.actions:
        # trace (mpi_trace.c): the blocking collective's communicator and root, for its events
        F.ok.append('if (PM_UNLIKELY(pm_mpi_trace_on)) pm_mpi_t_coll(&X, %s, %s);'
                    % (v('comm'), v('root') if 'root' in P else '-1'))
    return F


def body(call, fortran, callee, pass_args, fast_call, rc_from):
    """Common wrapper body. pass_args: arguments of the PMPI call (with substitutions applied)."""
    F = build(call, fortran)
    idx = 'pm_mpi_region[%s]' % call.enum
    if F.late and not (call.timed and call.actions):
        raise SystemExit('%s: a late action needs a timed call' % call.name)
    o = ['  int pm_s = pm_mpi_flags;',
         '  pm_loc *L = PM_LIKELY(pm_s & PM_MPI_ON) ? pm_enter_tool() : NULL;']
    if not call.actions:
        o.append('  if (PM_UNLIKELY(!L)) %s' % fast_call)
    elif call.always:
        o.append('  if (PM_UNLIKELY(!(pm_s & PM_MPI_ON))) %s' % fast_call)
    else:
        o.append('  if (PM_UNLIKELY(!L) && !(pm_s & PM_MPI_CP)) %s' % fast_call)
    if call.actions:
        o.append('  pm_mpi_ctx X;')
        o.append('  X.L = L;')
        o.append('  X.have_in = 0;')
    o += ['  ' + d for d in F.decl]
    if call.timed and call.actions:
        o.append('  uint64_t pm_t0 = L ? pm_clock_now() : 0;')
        o.append('  if (L) pm_call_enter(L, %s, %s, pm_t0);' % (idx, call.state))
    elif call.timed:
        o.append('  if (L) pm_call_enter(L, %s, %s, pm_clock_now());' % (idx, call.state))
    else:
        # a poll: inside a run of polls only its end is read (pm_poll_start)
        o.append('  uint64_t pm_t0 = L ? pm_poll_start(L) : 0;')
    o += ['  ' + d for d in F.pre]
    args = [F.subst.get(a, a) for a in pass_args]
    o += rc_from(F.call or '%s(%s);' % (callee, ', '.join(args)))
    o += ['  ' + d for d in F.early]
    if F.ok:
        if len(F.ok) == 1:
            o.append('  if (rc == MPI_SUCCESS) ' + F.ok[0])
        else:
            o.append('  if (rc == MPI_SUCCESS) {')
            o += ['    ' + d for d in F.ok]
            o.append('  }')
    o += ['  ' + d for d in F.post]
    o.append('  if (L) {')
    if call.timed and call.actions:
        # the merge credits the part of the call the incoming clock explains as waiting
        o.append('    uint64_t pm_t1 = pm_clock_now();')
        o.append('    pm_call_exit(L, pm_t1);')
        o += ['    ' + d for d in F.late]
        o.append('    if (X.have_in) pm_cp_merge_global_call(L, X.in, pm_t1 - pm_t0);')
    elif call.timed:
        o.append('    pm_call_exit(L, pm_clock_now());')
    else:
        # a poll is timed but makes no transition (pm_poll); one that completed a
        # message with a clock brings the location's clocks up to its end before the merge, or the
        # time since the last transition would be added on top of the incoming clock
        # (every other poll of a run reads no clock at all, pm_poll_end, unless it brought a clock)
        if call.actions:
            o.append('    uint64_t pm_t1 = X.have_in ? pm_clock_now() : pm_poll_end(L, pm_t0);')
        else:
            o.append('    uint64_t pm_t1 = pm_poll_end(L, pm_t0);')
        o.append('    pm_poll(L, %s, pm_t0, pm_t1);' % idx)
        if call.actions:
            o.append('    if (X.have_in) pm_cp_merge_global_poll(L, X.in, pm_t1);')
    o.append('    pm_leave_tool(L);')
    o.append('  }')
    o += ['  ' + d for d in F.end]
    return o


def gen_c(calls):
    o = [HEAD,
         '/* C wrappers: MPI_X counts / times the call on the calling location and calls PMPI_X. */',
         '#include "mpi_adapter.h"', '#include "pm_mpi_calls.h"', '']
    for c in calls:
        if not c.custom:
            o.append('#pragma weak P%s' % c.name)
    o += ['', 'pm_region_id pm_mpi_region[PM_MPI_NCALLS];', '',
          'static const struct { const char *name; pm_region_role role; } region_def[PM_MPI_NCALLS] = {']
    o += ['  [%s] = {"%s", %s},' % (c.enum, c.name, c.role) for c in calls]
    o += ['};', '',
          'void pm_mpi_register_regions(void) {',
          '  for (int i = 0; i < PM_MPI_NCALLS; i++)',
          '    pm_mpi_region[i] = pm_region_register(region_def[i].name, PM_PARADIGM_MPI, region_def[i].role);',
          '}', '']
    for c in calls:
        if c.custom:
            continue
        names = [p.name for p in c.params]
        proto = ', '.join(p.raw for p in c.params) or 'void'
        o.append('/* %s: %s%s */' % (c.cls, '; '.join('%s(%s)' % (a, ','.join(x)) for a, x in c.actions) or 'no action',
                                     ' (always)' if c.always else ''))
        o.append('PM_EXPORT %s %s(%s) {' % (c.ret, c.name, proto))
        fast = 'return P%s(%s);' % (c.name, ', '.join(names))
        o += body(c, False, 'P' + c.name, names, fast, lambda s, r=c.ret: ['  %s rc = %s' % (r, s)])
        o.append('  return rc;')
        o.append('}')
        o.append('')
    return '\n'.join(o)


def fparams(c):
    if c.fsig is not None:
        return [x.strip() for x in c.fsig.split(',') if x.strip()]
    return [p.fdecl() for p in c.params]


def gen_fortran(calls):
    o = [HEAD,
         '/* Fortran wrappers. Open MPI\'s Fortran bindings (libmpi_mpifh, libmpi_usempif08) call PMPI_*',
         ' * in C directly, so the C wrappers never see Fortran programs: these wrappers interpose the',
         ' * Fortran symbols (mpif.h / \'use mpi\': mpi_x_, mpi_x__, mpi_x, MPI_X; \'use mpi_f08\': mpi_x_f08_)',
         ' * and call the Fortran profiling symbols pmpi_x_ / pmpi_x_f08_. Every argument is a pointer;',
         ' * CHARACTER arguments add a hidden length after ierr (passed through unchanged). */',
         '#include "mpi_adapter.h"', '#include "pm_mpi_calls.h"', '#include <stddef.h>', '',
         '_Static_assert(sizeof(MPI_Fint) == sizeof(int), "INTEGER arrays are passed as int arrays");', '']
    fcalls = [c for c in calls if not c.custom and (c.fortran or c.f08)]
    for c in fcalls:
        ps = fparams(c) + ['MPI_Fint *ierr'] + ['size_t %s_len' % p.name for p in c.params if p.is_char()]
        for sym, on in (('p%s_' % c.lower, c.fortran), ('p%s_f08_' % c.lower, c.f08)):
            if on:
                o.append('extern void %s(%s) __attribute__((weak));' % (sym, ', '.join(ps)))
    o.append('')
    for c in fcalls:
        ps = fparams(c) + ['MPI_Fint *ierr'] + ['size_t %s_len' % p.name for p in c.params if p.is_char()]
        names = [p.name for p in c.params]
        hidden = ['%s_len' % p.name for p in c.params if p.is_char()]
        variants = []
        if c.fortran:
            variants.append(('%s_' % c.lower, 'p%s_' % c.lower,
                             ['%s__' % c.lower, c.lower, c.name.upper()]))
        if c.f08:
            variants.append(('%s_f08_' % c.lower, 'p%s_f08_' % c.lower, []))
        for sym, callee, aliases in variants:
            o.append('PM_EXPORT void %s(%s) {' % (sym, ', '.join(ps)))
            fast = '{ %s(%s); return; }' % (callee, ', '.join(names + ['ierr'] + hidden))
            o.append('  MPI_Fint pm_ierr_l = MPI_SUCCESS;')
            body_lines = body(c, True, callee, names + ['pm_ierr'] + hidden, fast,
                              lambda s: ['  %s' % s, '  int rc = (int)*pm_ierr;', '  (void)rc;'])
            # pm_ierr: the caller's ierr, or a local one when an optional ierror is absent (mpi_f08)
            body_lines.insert(3, '  MPI_Fint *pm_ierr = ierr ? ierr : &pm_ierr_l;')
            o += body_lines
            o.append('}')
            for a in aliases:
                o.append('PM_EXPORT void %s(%s) __attribute__((alias("%s")));' % (a, ', '.join(ps), sym))
            o.append('')
    return '\n'.join(o)


def gen_list(calls):
    o = []
    for c in calls:
        o.append('\t'.join([c.name, c.cls, c.state or 'poll', c.role, 'custom' if c.custom else 'generated',
                            'fortran' if c.fortran else '-', 'f08' if c.f08 else '-',
                            ';'.join('%s(%s)' % (a, ','.join(x)) for a, x in c.actions) or 'none']))
    return '\n'.join(o) + '\n'


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--table', required=True)
    ap.add_argument('--header')
    ap.add_argument('--c')
    ap.add_argument('--fortran')
    ap.add_argument('--list', action='store_true')
    a = ap.parse_args(argv)
    try:
        calls = read_table(a.table)
    except (TableError, OSError) as e:
        print('gen_wrappers.py: %s: %s' % (a.table, e), file=sys.stderr)
        return 1
    outs = [(a.header, gen_header), (a.c, gen_c), (a.fortran, gen_fortran)]
    try:
        for path, fn in outs:
            if path:
                text = fn(calls)
                tmp = path + '.tmp'
                with open(tmp, 'w', encoding='utf-8') as f:
                    f.write(text)
                os.replace(tmp, path)
    except TableError as e:
        print('gen_wrappers.py: %s: %s' % (a.table, e), file=sys.stderr)
        return 1
    if a.list:
        sys.stdout.write(gen_list(calls))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
