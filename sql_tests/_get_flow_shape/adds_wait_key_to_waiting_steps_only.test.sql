begin;
select plan(6);

-- SETUP: a plain step, a step whose handler waits, a wait without handler, two timers
select pgflow_tests.reset_db();
select pgflow.create_flow('waits');
select pgflow.add_step('waits', 'submit');
select pgflow.add_step('waits', 'review', array['submit']);
select pgflow.add_wait('waits', 'review', 'reviewed', signal_match => '{"region": "eu"}',
  timeout => 86400, on_timeout => 'skip-cascade');
select pgflow.add_step('waits', 'approved', array['submit']);
select pgflow.add_wait('waits', 'approved', 'approved', runs_handler => false);
select pgflow.add_step('waits', 'cool_off', array['approved']);
select pgflow.add_timer('waits', 'cool_off', seconds => 3600);
select pgflow.add_step('waits', 'remind', array['submit']);
select pgflow.add_timer('waits', 'remind', until_path => 'submit.remind_at');

-- TEST: a step that does not wait has no "wait" key (its shape is upstream's)
select is(pgflow._get_flow_shape('waits') #> '{steps,0}',
  pgflow_tests.shape_step('submit'),
  'the plain step has exactly upstream''s keys');
select is(
  (select array_agg(s ->> 'slug' order by ordinality) from jsonb_array_elements(pgflow._get_flow_shape('waits') -> 'steps')
     with ordinality as x(s, ordinality) where s ? 'wait'),
  array['review', 'approved', 'cool_off', 'remind'],
  'every waiting step, and only those, has a "wait" key');

-- TEST: the wait of each kind, every key present
select is(pgflow._get_flow_shape('waits') #> '{steps,1,wait}',
  '{"kind": "signal", "signal": "reviewed", "match": {"region": "eu"}, "timeout": 86400,
    "onTimeout": "skip-cascade", "handler": true}'::jsonb,
  'a step whose handler waits: its signal settings and handler true');
select is(pgflow._get_flow_shape('waits') #> '{steps,2,wait}',
  '{"kind": "signal", "signal": "approved", "match": null, "timeout": null,
    "onTimeout": "fail", "handler": false}'::jsonb,
  'a wait without handler: null match and timeout, handler false');
select is(pgflow._get_flow_shape('waits') #> '{steps,3,wait}',
  '{"kind": "timer", "seconds": 3600, "until": null}'::jsonb,
  'a timer of N seconds');
select is(pgflow._get_flow_shape('waits') #> '{steps,4,wait}',
  '{"kind": "timer", "seconds": null, "until": "submit.remind_at"}'::jsonb,
  'a timer until a timestamp at a path');

select * from finish();
rollback;
