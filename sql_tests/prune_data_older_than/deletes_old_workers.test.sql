begin;
select plan(3);

-- SETUP: one worker silent for 10 days, one heartbeating now.
select pgflow_tests.reset_db();
insert into pgflow.workers (worker_id, queue_name, function_name, started_at, last_heartbeat_at)
values ('aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa', 'q', 'old_fn', now() - interval '11 days', now() - interval '10 days'),
       ('bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb', 'q', 'new_fn', now() - interval '11 days', now());

-- TEST: workers whose last heartbeat is older than the cutoff are deleted, others kept
select lives_ok($$select pgflow.prune_data_older_than(interval '7 days')$$, 'prune runs');
select is(count(*)::int, 0, 'stale worker deleted')
from pgflow.workers where worker_id = 'aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa';
select is(count(*)::int, 1, 'live worker kept')
from pgflow.workers where worker_id = 'bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb';

select * from finish();
rollback;
