begin;
select plan(16);

-- Falsy-but-valid outputs ({}, 0, false, "") and JSON null must reach dependents
-- exactly; a step skipped by its condition must be absent, never confused with null.
-- SETUP: six root steps and a final step depending on all of them.
select pgflow_tests.reset_db();
select pgflow.create_flow('falsy', max_attempts => 1);
select pgflow.add_step('falsy', 's_obj');
select pgflow.add_step('falsy', 's_zero');
select pgflow.add_step('falsy', 's_false');
select pgflow.add_step('falsy', 's_empty');
select pgflow.add_step('falsy', 's_null');
select pgflow.add_step('falsy', 's_skipped', required_input_pattern => '{"run_skipped": true}'::jsonb,
                       when_unmet => 'skip');
select pgflow.add_step('falsy', 'final',
                       array['s_obj', 's_zero', 's_false', 's_empty', 's_null', 's_skipped']);
select run_id as run_id from pgflow.start_flow('falsy', '{"run_skipped": false}'::jsonb) \gset
select is(status, 'skipped', 'precondition: s_skipped is skipped by its condition')
from pgflow.step_states where run_id = :'run_id' and step_slug = 's_skipped';
select is(count(*)::int, 5, 'five root tasks are started')
from pgflow_tests.read_and_start('falsy', 1, 10);
select pgflow.complete_task(:'run_id', 's_obj', 0, '{}'::jsonb);
select pgflow.complete_task(:'run_id', 's_zero', 0, '0'::jsonb);
select pgflow.complete_task(:'run_id', 's_false', 0, 'false'::jsonb);
select pgflow.complete_task(:'run_id', 's_empty', 0, '""'::jsonb);
select pgflow.complete_task(:'run_id', 's_null', 0, 'null'::jsonb);

-- TEST: each step stored its real output
select is(output, '{}'::jsonb, 's_obj stored {}')
from pgflow.step_states where run_id = :'run_id' and step_slug = 's_obj';
select is(output, '0'::jsonb, 's_zero stored 0')
from pgflow.step_states where run_id = :'run_id' and step_slug = 's_zero';
select is(output, 'false'::jsonb, 's_false stored false')
from pgflow.step_states where run_id = :'run_id' and step_slug = 's_false';
select is(output, '""'::jsonb, 's_empty stored ""')
from pgflow.step_states where run_id = :'run_id' and step_slug = 's_empty';
select is(status, 'completed', 's_null completed (a null output is a valid result)')
from pgflow.step_states where run_id = :'run_id' and step_slug = 's_null';

-- TEST: the final step receives every value exactly; null present, skipped absent
create temp table final_task as select * from pgflow_tests.read_and_start('falsy', 1, 10);
select is(count(*)::int, 1, 'the final step starts') from final_task where step_slug = 'final';
select is(input, '{"s_obj": {}, "s_zero": 0, "s_false": false, "s_empty": "", "s_null": null}'::jsonb,
          'final input holds the exact falsy values and null')
from final_task;
select is(input->'s_obj', '{}'::jsonb, 'final input: s_obj is {}') from final_task;
select is(input->'s_zero', '0'::jsonb, 'final input: s_zero is 0') from final_task;
select is(input->'s_false', 'false'::jsonb, 'final input: s_false is false') from final_task;
select is(input->'s_empty', '""'::jsonb, 'final input: s_empty is ""') from final_task;
select ok(input ? 's_null' and input->'s_null' = 'null'::jsonb, 'final input: s_null present as JSON null')
from final_task;
select ok(not input ? 's_skipped', 'final input: the skipped step is absent') from final_task;

-- TEST: the run completes with the final output
select pgflow.complete_task(:'run_id', 'final', 0, '{"ok": true}'::jsonb);
select is(status, 'completed', 'run completed') from pgflow.runs where run_id = :'run_id';

select * from finish();
rollback;
