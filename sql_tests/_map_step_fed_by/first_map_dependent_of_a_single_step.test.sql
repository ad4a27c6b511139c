begin;
select plan(6);
select pgflow_tests.reset_db();

-- SETUP: producer (single) -> m2, m1 (maps, m1 added later so step_index m2 < m1);
-- producer -> plain (single); items (root map) -> m3 (map)
select pgflow.create_flow('fed');
select pgflow.add_step('fed', 'producer');
select pgflow.add_step('fed', 'm2', array['producer'], step_type => 'map');
select pgflow.add_step('fed', 'plain', array['producer']);
select pgflow.add_step('fed', 'm1', array['producer'], step_type => 'map');
select pgflow.add_step('fed', 'items', step_type => 'map');
select pgflow.add_step('fed', 'm3', array['items'], step_type => 'map');

-- TEST: a single step feeding maps: the first of them by step_index
select is(pgflow._map_step_fed_by('fed', 'producer'), 'm2', 'the first map dependent by step_index');

-- TEST: NULL for a single step without map dependents, a map step, unknown names
select is(pgflow._map_step_fed_by('fed', 'plain'), null, 'NULL for a single step without map dependents');
select is(pgflow._map_step_fed_by('fed', 'items'), null, 'NULL for a map step, even one feeding a map');
select is(pgflow._map_step_fed_by('fed', 'nope'), null, 'NULL for an unknown step');
select is(pgflow._map_step_fed_by('nope', 'producer'), null, 'NULL for an unknown flow');

-- TEST: it reads only
select is(pgflow._map_step_fed_by(null, null), null, 'NULL arguments: NULL');

select * from finish();
rollback;
