package booking

import "time"

// Cleaning is the gap a hall needs between one show's end and the next
// show's start (trailers are inside a show's running time here).
const Cleaning = 15 * time.Minute

// MaxFilmMinutes bounds a film's running time, and so how far back a show
// that could still be playing can have started.
const MaxFilmMinutes = 600

// ValidateFilm refuses a film without a title or with a running time out
// of 1..MaxFilmMinutes. EInvalid.
func ValidateFilm(f Film) error {
	if CleanLine(f.Title, 120) == "" {
		return Errorf(EInvalid, "A film needs a title.")
	}
	if f.Minutes < 1 || f.Minutes > MaxFilmMinutes {
		return Errorf(EInvalid, "A film runs between 1 and %d minutes.", MaxFilmMinutes)
	}
	return nil
}

// Describe is a price entry as the audit trail says it: "adult premium
// seat on the evening list".
func (e PriceEntry) Describe() string {
	d := e.Type + " " + e.Kind.String() + " seat"
	if e.List != "" {
		d += " on the " + e.List + " list"
	}
	return d
}
