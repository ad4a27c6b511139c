begin;
-- 16 hostile values x 6 calls, 15 non-NULL values x 1 call (dependencies), 3 checks
select plan(114);

-- SETUP: one valid flow with one step, and the hostile values
select pgflow_tests.reset_db();
select pgflow.create_flow('flow_a');
select pgflow.add_step('flow_a', 'first');
select pgflow_tests.row_counts() as counts_before \gset

create temp table hostile (id int, label text, v text);
insert into hostile values
  (1, 'an empty slug', ''),
  (2, 'a single quote', 'it''s'),
  (3, 'double quotes', 'say"hi"'),
  (4, 'a semicolon (SQL injection)', 'x; drop table pgflow.flows; --'),
  (5, '129 characters', repeat('a', 129)),
  (6, 'the reserved word run', 'run'),
  (7, 'a leading digit', '1st'),
  (8, 'a non-ASCII letter', 'flöw'),
  (9, 'an emoji', '🚀'),
  (10, 'a space', 'my flow'),
  (11, 'a hyphen', 'my-flow'),
  (12, 'a newline', E'a\nb'),
  (13, 'a backslash', 'a\b'),
  (14, 'a dollar quote', '$$'),
  (15, 'format directives', '%s%L%I'),
  (16, 'NULL', null);

-- TEST: create_flow rejects every hostile flow slug with check_violation, quoting it
select throws_ok(format('select pgflow.create_flow(%L)', v), '23514',
  format('Invalid flow slug %L', v), format('create_flow rejects %s', label))
from hostile order by id;

-- TEST: ensure_flow_compiled (the worker's entry point) rejects them the same way
select throws_ok(format('select pgflow.ensure_flow_compiled(%L, ''{"steps": []}'')', v), '23514',
  format('Invalid flow slug %L', v), format('ensure_flow_compiled rejects %s', label))
from hostile order by id;

-- TEST: add_step rejects every hostile step slug with check_violation, naming slug and flow
select throws_ok(format('select pgflow.add_step(''flow_a'', %L)', v), '23514',
  format('Invalid step slug %L in flow ''flow_a''', v), format('add_step rejects a step slug with %s', label))
from hostile order by id;

-- TEST: add_step with a hostile flow slug: that flow does not exist
select throws_ok(format('select pgflow.add_step(%L, ''second'')', v), '23503',
  format('Flow %L does not exist', v), format('add_step rejects a flow slug with %s', label))
from hostile order by id;

-- TEST: add_step with a hostile dependency slug: that dependency does not exist
select throws_ok(format('select pgflow.add_step(''flow_a'', ''second'', array[%L])', v), '23503',
  format('Dependency %L of step ''second'' does not exist in flow ''flow_a''', v),
  format('add_step rejects a dependency with %s', label))
from hostile where v is not null order by id;
select throws_ok($$ select pgflow.add_step('flow_a', 'second', array[null]) $$, '22004',
  'Step ''second'' lists a NULL dependency', 'add_step rejects a NULL dependency');

-- TEST: start_flow and start_flow_with_states with a hostile flow slug: unknown flow
select throws_ok(format('select * from pgflow.start_flow(%L, ''{}'')', v), '23503',
  format('Flow %L does not exist', v), format('start_flow rejects %s', label))
from hostile order by id;
select throws_ok(format('select pgflow.start_flow_with_states(%L, ''{}'')', v), '23503',
  format('Flow %L does not exist', v), format('start_flow_with_states rejects %s', label))
from hostile order by id;

-- TEST: nothing was written, nothing was dropped
select has_table('pgflow', 'flows', 'pgflow.flows still exists');
select is(pgflow_tests.row_counts(), :'counts_before'::jsonb,
  'no flow, step, dependency, run, step state, task or queue was added');

select * from finish();
rollback;
