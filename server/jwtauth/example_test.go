package jwtauth_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/keel-go/keel/server/jwtauth"
)

// A verifier for HS256 tokens of one audience; the resource is the token's
// sub.
func Example() {
	key := []byte("an example secret of at least 32 bytes")
	v, err := jwtauth.New(jwtauth.Options{Secret: key, Audience: []string{"keel"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	tok, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{
		"sub": "alice", "aud": "keel", "exp": time.Now().Add(time.Hour).Unix(),
	}).SignedString(key)
	fmt.Println(v.Authenticate(context.Background(), tok))

	expired, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{
		"sub": "alice", "aud": "keel", "exp": time.Now().Add(-time.Hour).Unix(),
	}).SignedString(key)
	_, err = v.Authenticate(context.Background(), expired)
	fmt.Println(errors.Is(err, jwtauth.ErrInvalidToken), err)
	fmt.Println(v)
	// Output:
	// alice <nil>
	// true jwtauth: invalid token: token has invalid claims: token is expired
	// HS256 with the shared secret; resource from claim sub; audience keel
}
