"""The rules of Gin Rummy: cards, melds, lay-offs, scoring, rulesets, actions, one
hand (:mod:`gin.engine.hand`), what one player may see of it
(:mod:`gin.engine.observation`) and a match. Pure and exact; its public names are
re-exported by :mod:`gin`. The twin of ``client/web/src/engine``."""
