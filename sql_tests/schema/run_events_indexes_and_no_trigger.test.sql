begin;
select plan(4);

-- TEST: run_events has exactly its primary key on (run_id, id), the events of a run in
-- order, and a BRIN index on created_at for time ranges (cheap to maintain)
select results_eq(
  $$select pg_get_indexdef(i.indexrelid) from pg_index as i
    where i.indrelid = 'pgflow.run_events'::regclass order by 1$$,
  $$values ('CREATE INDEX idx_run_events_created_at ON pgflow.run_events USING brin (created_at)'),
           ('CREATE UNIQUE INDEX run_events_pkey ON pgflow.run_events USING btree (run_id, id)')$$,
  'run_events: primary key (run_id, id) and BRIN (created_at), nothing else'
);

-- TEST: the audit trail is written by the transitions, not by triggers: no trigger on the
-- runtime tables (a trigger would cost every claim and completion)
select is(
  (select count(*)::int from pg_trigger
   where tgrelid in ('pgflow.runs'::regclass, 'pgflow.step_states'::regclass, 'pgflow.step_tasks'::regclass)
     and not tgisinternal),
  0,
  'no trigger on runs, step_states or step_tasks'
);
select has_function('pgflow', '_record_events', array['text[]', 'uuid[]', 'text[]', 'integer[]', 'jsonb[]', 'text'],
  '_record_events(events, run_ids, step_slugs, task_indexes, details, default_actor) exists');
select is(
  (select count(*)::int from pg_proc where pronamespace = 'pgflow'::regnamespace
   and proname in ('_record_run_events', '_record_step_events', '_record_task_events')),
  0,
  'no trigger function of an earlier design is left'
);

select * from finish();
rollback;
