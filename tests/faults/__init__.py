"""Fault reproductions: each test names the public report it comes from."""
