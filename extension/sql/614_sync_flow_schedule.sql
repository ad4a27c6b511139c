-- sync_flow_schedule: makes the default schedule of flow flow_slug (schedule_name = flow_slug)
-- match a flow definition: schedule NULL removes it, otherwise it is created or replaced when
-- its schedule or input (default {}) differ.

create function pgflow.sync_flow_schedule(flow_slug text, schedule text, input jsonb default '{}'::jsonb)
returns text
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_row pgflow.schedules;
begin
  select sc.* into v_row from pgflow.schedules as sc where sc.schedule_name = sync_flow_schedule.flow_slug;
  if sync_flow_schedule.schedule is null then
    if v_row.schedule_name is null then
      return 'none';
    end if;
    perform pgflow.unschedule_flow(sync_flow_schedule.flow_slug);
    return 'removed';
  end if;
  if v_row.schedule_name is not null
     and v_row.flow_slug = sync_flow_schedule.flow_slug
     and v_row.schedule = sync_flow_schedule.schedule
     and v_row.input = coalesce(sync_flow_schedule.input, '{}'::jsonb) then
    return 'unchanged';
  end if;
  perform pgflow.schedule_flow(sync_flow_schedule.flow_slug, sync_flow_schedule.schedule,
                               coalesce(sync_flow_schedule.input, '{}'::jsonb));
  return case when v_row.schedule_name is null then 'created' else 'updated' end;
end;
$$;

comment on function pgflow.sync_flow_schedule(text, text, jsonb) is
'Makes the default schedule of flow flow_slug (schedule_name = flow_slug) match a flow
definition: schedule NULL removes it, otherwise it is created or replaced when its schedule
or input (default {}) differ. Returns what happened: created, updated, unchanged, removed or
none. Named schedules are never touched. Raises what schedule_flow raises (for example
undefined_object without pg_cron, unless there is nothing to remove). Used by the worker at
start and by `pgflow schedule sync`. pgflow-py extension.';
