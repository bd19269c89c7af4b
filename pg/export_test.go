package pg

import (
	"context"
)

// Seal runs one seal of the audit trail, as the seal loop does.
func Seal(ctx context.Context, s *Store) (string, error) {
	head, err := s.seal(ctx)
	return head.String(), err
}
