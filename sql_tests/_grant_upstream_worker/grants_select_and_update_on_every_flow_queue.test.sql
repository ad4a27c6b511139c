begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: two flows whose queue tables the upstream worker role may not touch
select pgflow.create_flow('first_flow');
select pgflow.create_flow('second_flow');
revoke all on pgmq.q_first_flow, pgmq.q_second_flow from pgflow_upstream_worker;

select pgflow._grant_upstream_worker();

-- TEST: SELECT and UPDATE on the queue table of every flow
select results_eq(
  $$ select q, has_table_privilege('pgflow_upstream_worker', q, 'select'),
            has_table_privilege('pgflow_upstream_worker', q, 'update')
     from unnest(array['pgmq.q_first_flow', 'pgmq.q_second_flow']) as q order by q $$,
  $$ values ('pgmq.q_first_flow', true, true), ('pgmq.q_second_flow', true, true) $$,
  'SELECT and UPDATE on both queue tables'
);

-- TEST: nothing more on them, nothing on their archives
select results_eq(
  $$ select q, has_table_privilege('pgflow_upstream_worker', q, 'insert'),
            has_table_privilege('pgflow_upstream_worker', q, 'delete')
     from unnest(array['pgmq.q_first_flow', 'pgmq.q_second_flow']) as q order by q $$,
  $$ values ('pgmq.q_first_flow', false, false), ('pgmq.q_second_flow', false, false) $$,
  'no INSERT or DELETE on them'
);
select results_eq(
  $$ select has_table_privilege('pgflow_upstream_worker', 'pgmq.a_first_flow', 'select'),
            has_table_privilege('pgflow_upstream_worker', 'pgmq.a_second_flow', 'select') $$,
  $$ values (false, false) $$,
  'no SELECT on their archive tables'
);

select * from finish();
rollback;
