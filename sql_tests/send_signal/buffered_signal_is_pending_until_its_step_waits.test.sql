begin;
select plan(11);
select pgflow_tests.reset_db();

-- SETUP: prep -> first (waits for "approved", handler) -> second (waits for "approved", no
-- handler). Nothing waits yet when the signals are sent.
select pgflow.create_flow('buf', max_attempts => 1);
select pgflow.add_step('buf', 'prep');
select pgflow.add_step('buf', 'first', array['prep']);
select pgflow.add_wait('buf', 'first', 'approved');
select pgflow.add_step('buf', 'second', array['first']);
select pgflow.add_wait('buf', 'second', 'approved', runs_handler => false);
select run_id from pgflow.start_flow('buf', '{}'::jsonb) \gset

-- TEST: a signal sent before its step waits is stored pending, and returned so
select results_eq(
  format($$select signal_name, payload, status, taken_at, taken_by_step, duplicate
           from pgflow.send_signal(%L, 'approved', '{"n": 1}')$$, :'run_id'),
  $$values ('approved'::text, '{"n": 1}'::jsonb, 'pending'::text, null::timestamptz, null::text, false)$$,
  'send_signal returns the signal pending, not taken, not a duplicate'
);
select signal_id as s2 from pgflow.send_signal(:'run_id', 'approved', '{"n": 2}') \gset
select signal_id as s_other from pgflow.send_signal(:'run_id', 'other', '{"n": 3}') \gset
select signal_id as s1 from pgflow.signals where run_id = :'run_id' and payload = '{"n": 1}' \gset
select results_eq(
  format($$select step_slug, status from pgflow.step_states where run_id = %L order by step_slug$$, :'run_id'),
  $$values ('first'::text, 'created'::text), ('prep', 'started'), ('second', 'created')$$,
  'no step took them: first and second are still created'
);
select is(
  (select count(*)::int from pgflow.wait_states where run_id = :'run_id'), 0,
  'no wait has started'
);

-- TEST: when first starts waiting it takes the oldest pending signal of its name at once
select pgflow_tests.start_and_complete_task(:'run_id', 'prep');
select results_eq(
  format($$select signal_id, status, taken_by_step, taken_at is not null from pgflow.signals
           where run_id = %L order by signal_id$$, :'run_id'),
  format($$values (%s::bigint, 'taken'::text, 'first'::text, true), (%s, 'pending', null, false),
                  (%s, 'pending', null, false)$$, :'s1', :'s2', :'s_other'),
  'signal 1 (the oldest "approved") is taken by first; signal 2 and the "other" one stay pending'
);
select results_eq(
  format($$select outcome, signal_id, resolved_at is not null from pgflow.wait_states
           where run_id = %L and step_slug = 'first'$$, :'run_id'),
  format($$values ('signal'::text, %s::bigint, true)$$, :'s1'),
  'the wait of first is resolved by signal 1'
);
select is(
  (select status from pgflow.step_states where run_id = :'run_id' and step_slug = 'first'),
  'started', 'first went on at once: started (its handler runs)'
);
select ok(
  pgflow_tests.message_exists('buf', pgflow_tests.task_msg_id(:'run_id', 'first')),
  'the task of first has a message in the queue'
);

-- TEST: the next step that waits for the name takes the next oldest one
select pgflow_tests.start_and_complete_task(:'run_id', 'first', 0, '"done"'::jsonb);
select results_eq(
  format($$select signal_id, status, taken_by_step from pgflow.signals
           where run_id = %L order by signal_id$$, :'run_id'),
  format($$values (%s::bigint, 'taken'::text, 'first'::text), (%s, 'taken', 'second'),
                  (%s, 'pending', null)$$, :'s1', :'s2', :'s_other'),
  'second takes signal 2; the "other" signal is still pending'
);
select results_eq(
  format($$select status, output from pgflow.step_states where run_id = %L and step_slug = 'second'$$, :'run_id'),
  $$values ('completed'::text, '{"n": 2}'::jsonb)$$,
  'second (no handler) completed with the payload of signal 2'
);
select results_eq(
  format($$select status, output from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('completed'::text, '{"second": {"n": 2}}'::jsonb)$$,
  'the run completed; a pending signal of another name does not hold it'
);
select is(
  (select count(*)::int from pgflow.signals where run_id = :'run_id'), 3,
  'the signals are kept (three rows)'
);

select * from finish();
rollback;
