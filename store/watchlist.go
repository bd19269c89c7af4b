package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"boxoffice/booking"
)

// The film watchlist (booking.Watchlist): people waiting for a film that
// has no show to come. The show that AddShow adds marks every watcher of
// its film not yet told as told (tellWatchers), in the transaction that
// adds the show, each by compare-and-set on a watcher never told: of two
// managers adding shows of the film at once, one transaction marks them
// and the other finds them marked, so each is listed to call once. On
// PostgreSQL both writes also read the film's row locked first
// (FilmForUpdate), as a watch does, so a watch and a new show take turns:
// a watcher is either told by the show or refused because of it.

// WatchTx is what the watchlist asks of a transaction.
type WatchTx interface {
	// FilmNextShow reads the start of a film's first show starting after
	// after that is not cancelled; found is false when it has none.
	FilmNextShow(filmID int64, after time.Time) (starts time.Time, found bool, err error)
	// InsertWatch writes w at the transaction's time; ok is false, and
	// nothing is written, when w's phone (PhoneKey) waits for the film
	// already, untold.
	InsertWatch(w WatchRow) (id int64, ok bool, err error)
	// MarkWatchersToCall marks each watcher of a film never told as told
	// of show showID at the transaction's time, by compare-and-set on
	// one never told, and says how many it marked.
	MarkWatchersToCall(filmID, showID int64) (int, error)
	// MarkWatchCalledBy records that by called a watcher, at the
	// transaction's time, by compare-and-set on one told and never
	// called: false when it was not.
	MarkWatchCalledBy(id int64, by string) (bool, error)
	// ReadWatch reads a watch's Name, NotifiedAt, CalledAt and CalledBy;
	// found is false when there is none.
	ReadWatch(id int64) (w booking.FilmWatch, found bool, err error)
}

// WatchReads are the watchlist's reads outside a transaction.
type WatchReads interface {
	// ReadWatchCalls lists, oldest told first and at most limit, the
	// watchers told and never called: every field but Film and Show.
	ReadWatchCalls(ctx context.Context, limit int) ([]booking.FilmWatch, error)
	// CustomerWatches lists a customer's newest watches, at most limit:
	// every field but Show, with Film's ID and Title.
	CustomerWatches(ctx context.Context, customerID int64, limit int) ([]booking.FilmWatch, error)
	// FilmWatches lists a film's watches, oldest first, at most limit:
	// every field but Film and Show; empty when it has none.
	FilmWatches(ctx context.Context, filmID int64, limit int) ([]booking.FilmWatch, error)
}

// WatchRow is a watch to write, in its stored form.
type WatchRow struct {
	FilmID, CustomerID int64
	Name, Phone, Email string
	// PhoneKey is the phone in booking.NormalPhone's form: one watch per
	// phone and film waits untold.
	PhoneKey  string
	CreatedBy string
}

// watchCalls is how many watchers to call a list shows at most.
const watchCalls = 50

// watchRow validates and cleans req into the row to write: a name
// (booking.ValidName), a phone to call (booking.NormalPhone) and an
// address when one is given (booking.NormalEmail).
func watchRow(req booking.WatchRequest, country string, actor booking.Actor) (WatchRow, error) {
	if err := booking.ValidName(req.Name); err != nil {
		return WatchRow{}, err
	}
	key, err := booking.NormalPhone(req.Phone, country)
	if err != nil {
		return WatchRow{}, err
	}
	email := ""
	if strings.TrimSpace(req.Email) != "" {
		if email, err = booking.NormalEmail(req.Email); err != nil {
			return WatchRow{}, err
		}
	}
	return WatchRow{FilmID: req.FilmID, CustomerID: req.CustomerID, Name: booking.CleanLine(req.Name, booking.MaxNameLen),
		Phone: booking.CleanLine(req.Phone, 32), PhoneKey: key, Email: email, CreatedBy: booking.CleanLine(actor.Name, 40)}, nil
}

// Watch puts someone on a film's watchlist, while the film has no show to
// come.
func (s *Store) Watch(ctx context.Context, actor booking.Actor, req booking.WatchRequest) (*booking.FilmWatch, error) {
	if err := booking.Authorize(actor, booking.ActionWatchlist); err != nil {
		return nil, err
	}
	if req.CustomerID == 0 {
		// What was typed is all there is: refuse it before writing.
		if _, err := watchRow(req, s.opts.PhoneCountry, actor); err != nil {
			return nil, err
		}
	}
	return write(s, ctx, actor, Write{Op: "watch film"}, func(tx Tx) (*booking.FilmWatch, error) {
		f, found, err := tx.FilmForUpdate(req.FilmID)
		if err != nil {
			return nil, err
		}
		if !found {
			return nil, errNoFilm(req.FilmID)
		}
		if f.Retired {
			return nil, booking.Errorf(booking.EInvalid, "%s is retired: it gets no new shows.", booking.Clean(f.Title))
		}
		if req.CustomerID != 0 {
			c, err := liveCustomer(tx, req.CustomerID)
			if err != nil {
				return nil, err
			}
			req = fromCustomer(req, c)
		}
		row, err := watchRow(req, s.opts.PhoneCountry, actor)
		if err != nil {
			return nil, err
		}
		starts, found, err := tx.FilmNextShow(f.ID, tx.Now())
		if err != nil {
			return nil, err
		}
		if found {
			return nil, booking.Errorf(booking.EConflict, "%s is on sale: its next show is %s. Sell a ticket now.",
				booking.Clean(f.Title), starts.In(tx.Now().Location()).Format("Mon 02 Jan 15:04"))
		}
		id, ok, err := tx.InsertWatch(row)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, booking.Errorf(booking.EConflict, "That phone number is on the watchlist of %s already.", booking.Clean(f.Title))
		}
		w := &booking.FilmWatch{ID: id, FilmID: f.ID, Film: f, CustomerID: row.CustomerID, Name: row.Name, Phone: row.Phone,
			Email: row.Email, CreatedAt: tx.Now(), CreatedBy: row.CreatedBy}
		return w, Audit(tx, actor, booking.AuditEntry{Action: booking.AuditWatch, Detail: fmt.Sprintf("watch %d of film %d", id, f.ID)}, 0)
	})
}

// fromCustomer fills in the name, phone and address a watch request left
// empty from the customer's account.
func fromCustomer(req booking.WatchRequest, c booking.Customer) booking.WatchRequest {
	if strings.TrimSpace(req.Name) == "" {
		req.Name = c.Name
	}
	if strings.TrimSpace(req.Phone) == "" && c.Phone != "" {
		req.Phone = "+" + c.Phone // NormalPhone's international digits
	}
	if strings.TrimSpace(req.Email) == "" {
		req.Email = c.Email
	}
	return req
}

// tellWatchers marks the watchers of a film to call, in the transaction
// that added its show showID, and returns what the show's audit row adds
// ("" when nobody was waiting).
func tellWatchers(tx Tx, filmID, showID int64) (string, error) {
	n, err := tx.MarkWatchersToCall(filmID, showID)
	if err != nil || n == 0 {
		return "", err
	}
	return fmt.Sprintf("; %d watchers to call", n), nil
}

// WatchCalls lists the watchers to call, oldest told first, with the
// show that put their film on sale.
func (s *Store) WatchCalls(ctx context.Context, actor booking.Actor) ([]booking.FilmWatch, error) {
	if err := booking.Authorize(actor, booking.ActionWatchlist); err != nil {
		return nil, err
	}
	out, err := s.d.ReadWatchCalls(ctx, watchCalls)
	if err != nil {
		return nil, err
	}
	for i := range out {
		if out[i].Show, err = s.prog.Show(ctx, out[i].ShowID); err != nil {
			return nil, err
		}
		out[i].Film = out[i].Show.Film
	}
	if out == nil {
		out = []booking.FilmWatch{}
	}
	return out, nil
}

// FilmWatchers lists one film's watchers, each once, with the show that
// told them.
func (s *Store) FilmWatchers(ctx context.Context, actor booking.Actor, filmID int64) ([]booking.FilmWatch, error) {
	if err := booking.Authorize(actor, booking.ActionWatchlist); err != nil {
		return nil, err
	}
	films, err := s.d.ReadFilms(ctx)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(films, func(f booking.Film) bool { return f.ID == filmID })
	if i < 0 {
		return nil, errNoFilm(filmID)
	}
	out, err := s.d.FilmWatches(ctx, filmID, booking.MaxFilmWatchers)
	if err != nil {
		return nil, err
	}
	for j := range out {
		out[j].Film = films[i]
		if out[j].ShowID == 0 {
			continue
		}
		if out[j].Show, err = s.prog.Show(ctx, out[j].ShowID); err != nil {
			return nil, err
		}
	}
	if out == nil {
		out = []booking.FilmWatch{}
	}
	return out, nil
}

// MarkWatchCalled claims a told watcher as called by compare-and-set: of
// two counters at once, one records the call and the other is told who
// made it.
func (s *Store) MarkWatchCalled(ctx context.Context, actor booking.Actor, id int64) error {
	if err := booking.Authorize(actor, booking.ActionWatchlist); err != nil {
		return err
	}
	return apply(s, ctx, actor, Write{Op: "watch called"}, func(tx Tx) error {
		ok, err := tx.MarkWatchCalledBy(id, booking.CleanLine(actor.Name, 40))
		if err != nil {
			return err
		}
		if ok {
			return Audit(tx, actor, booking.AuditEntry{Action: booking.AuditWatch, Detail: fmt.Sprintf("called watch %d", id)}, 0)
		}
		w, found, err := tx.ReadWatch(id)
		switch {
		case err != nil:
			return err
		case !found:
			return booking.Errorf(booking.ENotFound, "There is no watch %d.", id)
		case w.NotifiedAt == nil:
			return booking.Errorf(booking.EConflict, "%s's film has no show yet: nothing to call about.", booking.Clean(w.Name))
		}
		return &booking.StaleError{What: booking.Clean(w.Name), Current: "called by " + booking.Clean(w.CalledBy)}
	})
}
