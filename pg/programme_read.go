package pg

import (
	"context"
)

// The upkeep a server runs, on PostgreSQL. (The programme's and the
// prices' reads and writes are store's, over tx_programme.go and
// tx_prices.go.)

// TrimChanges trims nothing: PostgreSQL keeps no change log (servers
// tell each other by NOTIFY, which keeps nothing to trim).
func (s *Store) TrimChanges(ctx context.Context) (int, error) { return 0, nil }
