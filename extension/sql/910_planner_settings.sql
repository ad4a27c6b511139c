-- Planner settings of the entry points that drive batches: the one place they are set.
--
-- Why (measured with `make bench`, README "Performance"): every statement of these
-- functions is driven by a small batch of keys (the reports of one complete_tasks call, the
-- messages of one read, the steps of one run), so index nested loops are right at any
-- table size. Left to itself the planner sometimes picked a hash join over a few thousand
-- rows, or (generic plans made while a table was still empty or never analyzed) a
-- sequential scan of runs for run_id = any(<array>), whose cost then grew with the table, and the row estimates of generate_series / unnest made it JIT-compile queries that
-- run in microseconds (10 ms each time). A generic plan, cached per session, saves
-- re-planning the same statements at every call. The settings hold for the whole call,
-- nested functions included (_complete_tasks, _advance_runs, _start_ready_steps,
-- _queue_step_tasks, ...), whose plans are cached under them. No other function carries a
-- setting besides search_path (sql_tests/security checks the list).
--
-- join_collapse_limit = 1 (and from_collapse_limit = 1) makes explicit JOINs run in the
-- order they are written, and every statement of these functions is written from its batch
-- of keys outward (unnest(...) first, then each table by its key). With stale statistics (a
-- table filled by a burst, not analyzed yet) the planner otherwise reached step_states
-- through its flow_slug index and read every step state of the flow at each call: the cost
-- of one complete_task grew with the table.
--
-- One more rule, in the statements themselves: where runs are looked up by run_id =
-- any(<array>) the run status is tested with `is not distinct from 'started'`, which no
-- index can serve. With `= 'started'` a generic plan made while the table's statistics were
-- stale (a burst of start_flow calls, a backlog of started runs) picked idx_runs_status and
-- then read every started run at each call: start_flow slowed down in proportion to the
-- backlog (make bench, START).
--
-- CREATE OR REPLACE FUNCTION drops these settings: this file runs after every install and
-- upgrade script's functions.

alter function pgflow.start_flow(text, jsonb, uuid, text, text, timestamptz)
  set enable_seqscan = off set enable_hashjoin = off set enable_mergejoin = off
  set join_collapse_limit = 1 set from_collapse_limit = 1 set jit = off
  set plan_cache_mode = force_generic_plan;

alter function pgflow.start_tasks(text, bigint[], uuid)
  set enable_seqscan = off set enable_hashjoin = off set enable_mergejoin = off
  set join_collapse_limit = 1 set from_collapse_limit = 1 set jit = off
  set plan_cache_mode = force_generic_plan;

alter function pgflow.read_and_start_tasks(text, uuid, int, int, text[])
  set enable_seqscan = off set enable_hashjoin = off set enable_mergejoin = off
  set join_collapse_limit = 1 set from_collapse_limit = 1 set jit = off
  set plan_cache_mode = force_generic_plan;

alter function pgflow.complete_tasks(uuid[], text[], int[], jsonb[], int[])
  set enable_seqscan = off set enable_hashjoin = off set enable_mergejoin = off
  set join_collapse_limit = 1 set from_collapse_limit = 1 set jit = off
  set plan_cache_mode = force_generic_plan;

alter function pgflow.fail_tasks(uuid[], text[], int[], text[], int[], boolean[], text[])
  set enable_seqscan = off set enable_hashjoin = off set enable_mergejoin = off
  set join_collapse_limit = 1 set from_collapse_limit = 1 set jit = off
  set plan_cache_mode = force_generic_plan;
