"""Fintech: digital banking, payment technologies and robo-advisors."""
