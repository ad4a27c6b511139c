begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: one flow with an if (required), one with an ifNot (forbidden) on a later step
select pgflow.create_flow('with_if');
select pgflow.add_step('with_if', 'gate', required_input_pattern => '{"ok": true}');
select pgflow.create_flow('with_if_not');
select pgflow.add_step('with_if_not', 'first');
select pgflow.add_step('with_if_not', 'second', array['first'], forbidden_input_pattern => '{"first": null}');
select pgflow_tests.setup_flow('sequential');

-- TEST: either pattern counts, on any step
select is(pgflow._flow_has_conditions('with_if'), true, 'a required_input_pattern is a condition');
select is(pgflow._flow_has_conditions('with_if_not'), true, 'a forbidden_input_pattern on a dependent step is a condition');

-- TEST: only the named flow is looked at
select is(pgflow._flow_has_conditions('sequential'), false, 'another flow''s conditions do not count');

select * from finish();
rollback;
