package oauthas

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// AuthorizationCode runs the authorization-code grant with PKCE (S256) as
// a client would, headlessly: it opens the authorization URL with an HTTP
// client that follows the provider's redirects (the login step approves
// at once as the provider's test user), stops at redirectURI, checks the
// state and exchanges the code at the token endpoint. resource, when not
// empty, is sent in both requests as RFC 8707 asks; it becomes the
// token's audience. secret may be empty for a public client.
func (p *Provider) AuthorizationCode(ctx context.Context, clientID, secret, redirectURI string, scopes []string, resource string) (*Token, error) {
	code, verifier, err := p.Authorize(ctx, clientID, redirectURI, scopes, resource)
	if err != nil {
		return nil, err
	}
	form := url.Values{
		"grant_type":    {"authorization_code"},
		"code":          {code},
		"redirect_uri":  {redirectURI},
		"code_verifier": {verifier},
		"client_id":     {clientID},
	}
	if resource != "" {
		form.Set("resource", resource)
	}
	return p.token(ctx, form, clientID, secret)
}

// Authorize runs the front-channel half of the authorization-code grant
// and returns the code and the PKCE verifier for the token request.
func (p *Provider) Authorize(ctx context.Context, clientID, redirectURI string, scopes []string, resource string) (code, verifier string, err error) {
	verifier = rand.Text() + rand.Text()
	sum := sha256.Sum256([]byte(verifier))
	state := rand.Text()
	q := url.Values{
		"response_type":         {"code"},
		"client_id":             {clientID},
		"redirect_uri":          {redirectURI},
		"scope":                 {strings.Join(scopes, " ")},
		"state":                 {state},
		"code_challenge":        {base64.RawURLEncoding.EncodeToString(sum[:])},
		"code_challenge_method": {"S256"},
	}
	if resource != "" {
		q.Set("resource", resource)
	}
	redirect, err := p.FollowAuthorization(ctx, p.AuthorizationURL()+"?"+q.Encode(), redirectURI)
	if err != nil {
		return "", "", err
	}
	back := redirect.Query()
	if e := back.Get("error"); e != "" {
		return "", "", fmt.Errorf("oauthas: authorization: %s: %s", e, back.Get("error_description"))
	}
	if back.Get("state") != state {
		return "", "", errors.New("oauthas: authorization: state mismatch")
	}
	if code = back.Get("code"); code == "" {
		return "", "", errors.New("oauthas: authorization: no code")
	}
	return code, verifier, nil
}

// FollowAuthorization opens authURL (an authorization request built by
// any client, the official SDK's among them) and follows the provider's
// redirects until one leads to redirectURI, which it returns without
// opening: the place a browser would hand back to the client.
func (p *Provider) FollowAuthorization(ctx context.Context, authURL, redirectURI string) (*url.URL, error) {
	var back *url.URL
	hc := &http.Client{CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if strings.HasPrefix(req.URL.String(), redirectURI) {
			back = req.URL
			return http.ErrUseLastResponse
		}
		if len(via) > 10 {
			return errors.New("oauthas: too many redirects")
		}
		return nil
	}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return nil, fmt.Errorf("oauthas: authorization request: %w", err)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("oauthas: authorization: %w", err)
	}
	resp.Body.Close()
	if back == nil {
		return nil, fmt.Errorf("oauthas: authorization ended at %s with %s, not at the redirect URI", resp.Request.URL, resp.Status)
	}
	return back, nil
}
