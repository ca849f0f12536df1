"""The agent's parameter search (issue 35): Optuna TPE with successive-halving pruning, and the adoption check."""
