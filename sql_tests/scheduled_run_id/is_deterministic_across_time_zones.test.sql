begin;
select plan(3);

-- TEST: the id depends on the name and the instant only, not on the session time zone
select is(pgflow.scheduled_run_id('nightly', '2026-01-01 00:00:00+00'),
          pgflow.scheduled_run_id('nightly', '2026-01-01 00:00:00+00'), 'same inputs, same id');
set local timezone = 'Asia/Tokyo';
select is(pgflow.scheduled_run_id('nightly', '2026-01-01 00:00:00+00'),
          md5('nightly@1767225600')::uuid, 'time zone does not change the id');
select isnt(pgflow.scheduled_run_id('nightly', '2026-01-01 00:01:00+00'),
            pgflow.scheduled_run_id('nightly', '2026-01-01 00:00:00+00'), 'another slot, another id');

select * from finish();
rollback;
