begin;
select plan(5);
select pgflow_tests.reset_db();

-- SETUP: a run id (no run row needed); pgflow.actor and pgflow.reason unset
select gen_random_uuid() as run \gset
select set_config('pgflow.actor', '', true), set_config('pgflow.reason', '', true);
select coalesce(max(id), 0) as last_id from pgflow.run_events \gset

-- TEST: settings unset: the actor is default_actor (system when not given), no reason
select pgflow._record_events(array['run:completed'], array[:'run']::uuid[]);
select pgflow._record_events(array['run:started'], array[:'run']::uuid[], default_actor => 'app');
select results_eq(
  format($$select event, actor, reason from pgflow.run_events where id > %s order by id$$, :last_id),
  $$values ('run:completed'::text, 'system'::text, null::text), ('run:started', 'app', null)$$,
  'unset: system by default, app when default_actor is app; reason NULL'
);

-- TEST: pgflow.actor set: it wins over default_actor (also over app); pgflow.reason is the reason
select max(id) as last_id from pgflow.run_events \gset
select set_config('pgflow.actor', 'ops-script', true), set_config('pgflow.reason', 'nightly cleanup', true);
select pgflow._record_events(array['run:completed'], array[:'run']::uuid[]);
select pgflow._record_events(array['run:started'], array[:'run']::uuid[], default_actor => 'app');
select results_eq(
  format($$select event, actor, reason from pgflow.run_events where id > %s order by id$$, :last_id),
  $$values ('run:completed'::text, 'ops-script'::text, 'nightly cleanup'::text),
           ('run:started', 'ops-script', 'nightly cleanup')$$,
  'set: ops-script for both calls, reason nightly cleanup'
);

-- TEST: a blank pgflow.actor counts as unset (default_actor), the reason is still kept
select max(id) as last_id from pgflow.run_events \gset
select set_config('pgflow.actor', '', true), set_config('pgflow.reason', 'only a reason', true);
select pgflow._record_events(array['run:failed'], array[:'run']::uuid[], default_actor => 'app');
select results_eq(
  format($$select actor, reason from pgflow.run_events where id > %s$$, :last_id),
  $$values ('app'::text, 'only a reason'::text)$$,
  'blank actor: default_actor app, reason only a reason'
);

-- TEST: a blank pgflow.reason is NULL
select max(id) as last_id from pgflow.run_events \gset
select set_config('pgflow.actor', 'bob', true), set_config('pgflow.reason', '', true);
select pgflow._record_events(array['run:paused'], array[:'run']::uuid[]);
select results_eq(
  format($$select actor, reason from pgflow.run_events where id > %s$$, :last_id),
  $$values ('bob'::text, null::text)$$,
  'blank reason: NULL'
);

-- TEST: the settings are read at each call: a new actor applies to the next call
select max(id) as last_id from pgflow.run_events \gset
select set_config('pgflow.actor', 'carol', true);
select pgflow._record_events(array['run:resumed'], array[:'run']::uuid[]);
select is((select actor from pgflow.run_events where id > :last_id), 'carol', 'the next call uses the new setting');

select * from finish();
rollback;
