begin;
select plan(7);

-- SETUP
select pgflow_tests.reset_db();

-- TEST: shapes that are not {"steps": [...]} raise and write nothing
select throws_ok($$ select pgflow.ensure_flow_compiled('f1', '"not a shape"'::jsonb) $$,
  '22023', 'Shape of flow ''f1'' must be a JSON object with a "steps" array (got string)', 'a string');
select throws_ok($$ select pgflow.ensure_flow_compiled('f1', 'null'::jsonb) $$,
  '22023', null, 'JSON null');
select throws_ok($$ select pgflow.ensure_flow_compiled('f1', null) $$,
  '22023', 'Shape of flow ''f1'' must be a JSON object with a "steps" array (got NULL)', 'SQL NULL');
select throws_ok($$ select pgflow.ensure_flow_compiled('f1', '[]'::jsonb) $$,
  '22023', null, 'an array');
select throws_ok($$ select pgflow.ensure_flow_compiled('f1', '{"stepz": []}'::jsonb) $$,
  '22023', null, 'a misspelled key');
select is((select count(*)::int from pgflow.flows), 0, 'no flow written');
select is((select count(*)::int from pgmq.list_queues()), 0, 'no queue created');

select * from finish();
rollback;
