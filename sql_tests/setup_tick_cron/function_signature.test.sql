begin;
select plan(3);

-- TEST: setup_tick_cron(cron_interval text default '5 seconds') returns text, SECURITY DEFINER
select is(pgflow_tests.function_signature('setup_tick_cron'),
  'setup_tick_cron(cron_interval text DEFAULT ''5 seconds''::text) returns text',
  'pgflow.setup_tick_cron(cron_interval text default ''5 seconds'') returns text');
select is_definer('pgflow', 'setup_tick_cron', array['text'], 'setup_tick_cron is SECURITY DEFINER');

-- TEST: without pg_cron the error names it
drop extension pg_cron cascade;
select throws_like($$select pgflow.setup_tick_cron()$$, '%pg_cron%', 'without pg_cron the error names pg_cron');

select * from finish();
rollback;
