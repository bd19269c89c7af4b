package pg

import (
	"context"
	"time"
)

// One clock for every server on a database: holds, their expiry, PIN
// lockouts and the door's checks are all decided by the transaction's
// time, and a server whose clock ran slow would write holds that another
// server finds already lapsed (a clerk loses a customer's seats) or keep
// lapsed ones alive. So a transaction's time is the database server's:
// each server measures how far its own clock is from PostgreSQL's
// (clock_timestamp(), halfway through the round trip) at start and every
// clockEvery, and adds that to Options.Clock. The measurement costs a
// transaction nothing; reading now() in every statement instead would
// have to move every time the rules compute (an expiry, a cut-off) into
// SQL.
const (
	// clockEvery is how often a server measures its clock against the
	// database's.
	clockEvery = 30 * time.Second
	// clockSlack is the difference a server leaves uncorrected: a round
	// trip's noise, far below a hold's minutes, so a server in step keeps
	// its own clock exactly (and a test's clock stays the test's).
	clockSlack = 250 * time.Millisecond
	// ClockWarn is the difference at which a server warns that its clock
	// is off (its log at start and after each measurement, and
	// ClockSkew for the metrics).
	ClockWarn = time.Second
	// clockSamples is how many round trips one measurement takes; the
	// shortest decides.
	clockSamples = 3
)

// now is the transaction's time: Options.Clock corrected to the
// database's clock.
func (s *Store) now() time.Time { return s.opts.Clock().Add(time.Duration(s.skew.Load())) }

// ClockSkew is how far the database server's clock was ahead of this
// server's at the last measurement (negative: behind): what this server
// adds to its own clock.
func (s *Store) ClockSkew() time.Duration { return time.Duration(s.measured.Load()) }

// measureClock measures the skew, applies it when it moved by more than
// clockSlack, and warns when the server's clock is more than ClockWarn
// off the database's.
func (s *Store) measureClock(ctx context.Context) error {
	var skew time.Duration
	best := time.Duration(-1)
	for range clockSamples {
		before := s.opts.wall()
		var db time.Time
		if err := s.pool.QueryRow(ctx, `SELECT clock_timestamp()`).Scan(&db); err != nil {
			return err
		}
		rtt := s.opts.wall().Sub(before)
		if best < 0 || rtt < best {
			best, skew = rtt, db.Sub(before.Add(rtt/2))
		}
	}
	s.measured.Store(int64(skew))
	applied := time.Duration(s.skew.Load())
	if (skew - applied).Abs() <= clockSlack {
		return nil
	}
	s.skew.Store(int64(skew))
	if skew.Abs() > ClockWarn {
		s.log.Warn("this server's clock is off the database's: holds, expiries, lockouts and the door go by the database's clock",
			"database_ahead_by", skew.Round(time.Millisecond), "round_trip", best.Round(time.Microsecond))
	} else {
		s.log.Info("this server's clock is back in step with the database's", "database_ahead_by", skew.Round(time.Millisecond))
	}
	return nil
}

// clockLoop measures the clock every clockEvery until ctx ends.
func (s *Store) clockLoop(ctx context.Context) {
	defer s.stopped.Done()
	tick := time.NewTicker(clockEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if err := s.measureClock(ctx); err != nil && ctx.Err() == nil {
			s.log.Debug("measuring the clock against the database's failed; the next measurement tries again", "err", err)
		}
	}
}
