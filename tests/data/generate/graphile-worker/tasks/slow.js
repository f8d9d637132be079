module.exports = async () => { await new Promise((r) => setTimeout(r, 600000)); };
