-- _skip_steps: steps are skipped and their outstanding messages archived (the one
-- implementation of "a step is skipped").

create function pgflow._skip_steps(
  run_id uuid,
  step_slugs text[],
  skip_reason text,
  error_message text default null
)
returns text[]
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_now timestamptz := pgflow._now();
  v_slugs text[];
begin
  with skipped as (
    update pgflow.step_states as ss
    set status = 'skipped',
        skip_reason = _skip_steps.skip_reason,
        skipped_at = v_now,
        failed_at = null,
        error_message = coalesce(_skip_steps.error_message, ss.error_message),
        remaining_tasks = null
    where ss.run_id = _skip_steps.run_id
      and ss.step_slug = any(_skip_steps.step_slugs)
      and ss.status in ('created', 'started', 'waiting', 'failed')
    returning ss.flow_slug, ss.step_slug
  )
  select array_agg(sk.step_slug order by s.step_index)
  into v_slugs
  from skipped as sk
  join pgflow.steps as s on s.flow_slug = sk.flow_slug and s.step_slug = sk.step_slug;
  if v_slugs is null then
    return '{}'::text[];
  end if;
  perform pgflow._record_events(array['step:skipped'],
    array_fill(_skip_steps.run_id, array[cardinality(v_slugs)]), v_slugs,
    details => array_fill(jsonb_build_object('skip_reason', _skip_steps.skip_reason), array[cardinality(v_slugs)]));

  -- Their queued and started tasks will not be needed: cancelled, messages to the archive.
  perform pgflow._cancel_tasks(array_fill(_skip_steps.run_id, array[cardinality(v_slugs)]), v_slugs);

  -- step:skipped in step_index order; after a handler failure (error_message given) the
  -- event carries the error and no flow_slug, as upstream's.
  if pgflow._realtime_enabled() then
    perform pgflow._broadcast(ss.run_id, 'step:' || ss.step_slug || ':skipped',
      case
        when _skip_steps.error_message is null then jsonb_build_object(
          'event_type', 'step:skipped',
          'run_id', ss.run_id,
          'flow_slug', ss.flow_slug,
          'step_slug', ss.step_slug,
          'status', 'skipped',
          'skip_reason', ss.skip_reason,
          'skipped_at', ss.skipped_at)
        else jsonb_build_object(
          'event_type', 'step:skipped',
          'run_id', ss.run_id,
          'step_slug', ss.step_slug,
          'status', 'skipped',
          'skip_reason', ss.skip_reason,
          'error_message', ss.error_message,
          'skipped_at', ss.skipped_at)
      end)
    from unnest(v_slugs) with ordinality as k (step_slug, ord)
    join pgflow.step_states as ss on ss.run_id = _skip_steps.run_id and ss.step_slug = k.step_slug
    order by k.ord;
  end if;

  return v_slugs;
end;
$$;

comment on function pgflow._skip_steps(uuid, text[], text, text) is
'Skips the steps step_slugs (text[]) of run run_id that are created, started, waiting or
failed (skip_step): status skipped, skip_reason (condition_unmet, handler_failed, timed_out,
dependency_skipped, or skipped_by_operator), skipped_at now, failed_at cleared,
remaining_tasks NULL, error_message when given; their queued and started tasks are
cancelled and their messages archived (_cancel_tasks); broadcasts step:skipped per step in step_index order when realtime is on
(with error_message and without flow_slug when error_message is given, as upstream).
Returns the slugs it skipped, in step_index order ({} when none: a repeated call skips
nothing). Does not touch remaining_steps or dependents: callers release them
(_release_dependents) or skip them too (_cascade_force_skip_steps). The caller holds the
run row. pgflow-py internal, used by cascade_resolve_conditions, _cascade_force_skip_steps
and _skip_failed_step.';
