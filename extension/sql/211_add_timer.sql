-- add_timer: make a step of a flow wait for a time before it runs. Idempotent; the wait is
-- stored in step_waits.

create function pgflow.add_timer(
  flow_slug text,
  step_slug text,
  seconds int default null,
  until_path text default null
)
returns pgflow.step_waits
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_step pgflow.steps;
  v_wait pgflow.step_waits;
  v_root text := split_part(add_timer.until_path, '.', 1);
begin
  v_step := pgflow._lock_step_definition('add_timer', add_timer.flow_slug, add_timer.step_slug);
  if (add_timer.seconds is null) = (add_timer.until_path is null) then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = 'add_timer: give either seconds or until_path, not both and not neither';
  end if;
  if add_timer.seconds < 0 then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = format('add_timer: seconds must be >= 0 (got %s)', add_timer.seconds);
  end if;
  if add_timer.until_path is not null and (
       add_timer.until_path !~ '^[^.\s]+(\.[^.\s]+)*$'
       or (v_root <> 'input' and not exists (
             select 1 from pgflow.deps as d
             where d.flow_slug = v_step.flow_slug and d.step_slug = v_step.step_slug
               and d.dep_slug = v_root))) then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = format('add_timer: until_path %L must be input.<key>... or <dependency>.<key>... '
                       '(a dependency of step %L)', add_timer.until_path, add_timer.step_slug),
      hint = 'For example ''input.remind_at'' (the run input) or ''order.ship_by'' (the output of dependency order).';
  end if;
  v_wait.flow_slug := add_timer.flow_slug;
  v_wait.step_slug := add_timer.step_slug;
  v_wait.kind := 'timer';
  v_wait.on_timeout := 'fail';
  v_wait.runs_handler := false;
  v_wait.sleep_seconds := add_timer.seconds;
  v_wait.sleep_until := add_timer.until_path;
  return pgflow._store_step_wait(v_wait);
end;
$$;

comment on function pgflow.add_timer(text, text, int, text) is
'Makes step step_slug (a single step, added with add_step; it has no handler) of flow
flow_slug a timer: once its dependencies are complete and its condition met it waits, with
no task and no worker, and completes (output {"due_at", "fired_at"}) when the time comes
(the engine''s time, pgflow._now()): seconds (>= 0) after it started waiting, or at the ISO
8601 timestamp read at until_path: input.<key>.<key>... in the run input,
<dep_slug>.<key>... in the output of dependency dep_slug (a timestamp without offset is
UTC). A timestamp already past completes
it at once; one that cannot be read fails it (its when_exhausted applies). Returns the
step_waits row. Repeating the same call is a no-op. Raises, writing nothing:
foreign_key_violation (unknown flow or step), check_violation (a map step),
invalid_parameter_value (both or neither of seconds and until_path, seconds < 0, a path
that is not input.... or <dependency>....), unique_violation (the step already waits, with
other settings). pgflow-py extension.';
