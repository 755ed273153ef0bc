"""Operations tooling: load tests (:mod:`infra.load`) and deployment notes."""
